"""``torch.hub``'s checkpoint download (``load_state_dict_from_url``, ``download_url_to_file``,
``get_dir``/``set_dir``) and ``torch.utils.model_zoo.load_url`` (the same function), as torch
2.x writes them: model files import ``torch.utils.model_zoo`` at import time (efficientnet-pytorch,
torchvision-style code), so without it they cannot even be imported.  The downloaded file is
read by the facade's ``torch.load``.  ``torch.hub.load``/``list``/``help`` (GitHub hubconf
repositories) are not provided."""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: hub
    torch.hub: download_url_to_file get_dir load_state_dict_from_url set_dir
    torch.utils: model_zoo
    torch.utils.model_zoo: load_url
""")

import hashlib
import os
import re
import shutil
import sys
import uuid
import warnings
import zipfile
from urllib.parse import urlparse
from urllib.request import Request, urlopen

from .registry import module, torch_function

module("torch.hub")
module("torch.utils.model_zoo")

# torch/hub.py: a file name's "-<hex>." part is the sha256 prefix that check_hash verifies
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_READ_CHUNK = 128 * 1024
_hub_dir = None


@torch_function("torch.hub.get_dir", note="$TORCH_HOME/hub (default ~/.cache/torch/hub), as torch")
def get_dir() -> str:
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    home = os.path.expanduser(os.getenv(
        "TORCH_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch")))
    return os.path.join(home, "hub")


@torch_function("torch.hub.set_dir")
def set_dir(d) -> None:
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


@torch_function("torch.hub.download_url_to_file",
                note="no progress bar (progress= is accepted and ignored)")
def download_url_to_file(url, dst, hash_prefix=None, progress=True) -> None:
    # torch downloads to a unique ".partial" file and renames it once complete, so a broken
    # download never replaces a good checkpoint.
    dst = os.path.expanduser(dst)
    tmp_dst = f"{dst}.{uuid.uuid4().hex}.partial"
    f = open(tmp_dst, "w+b")  # noqa: SIM115 -- closed before the rename below
    try:
        with urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as u:
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            while True:
                buffer = u.read(_READ_CHUNK)
                if not buffer:
                    break
                f.write(buffer)
                if sha256 is not None:
                    sha256.update(buffer)
        f.close()
        if sha256 is not None:
            digest = sha256.hexdigest()
            if digest[:len(hash_prefix)] != hash_prefix:
                raise RuntimeError(
                    f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(f.name, dst)
    finally:
        f.close()
        if os.path.exists(f.name):
            os.remove(f.name)


def _is_legacy_zip_format(filename) -> bool:
    # checkpoints of torch < 1.6 were a zip holding one pickled file
    if zipfile.is_zipfile(filename):
        infolist = zipfile.ZipFile(filename).infolist()
        return len(infolist) == 1 and not infolist[0].is_dir()
    return False


def _legacy_zip_load(filename, model_dir, map_location, weights_only):
    from .serialization import load
    with zipfile.ZipFile(filename) as f:
        members = f.infolist()
        if len(members) != 1:
            raise RuntimeError("Only one file(not dir) is allowed in the zipfile")
        f.extractall(model_dir)
        extracted = os.path.join(model_dir, members[0].filename)
    return load(extracted, map_location=map_location, weights_only=weights_only)


@torch_function("torch.hub.load_state_dict_from_url",
                note="read with the facade's torch.load; no progress bar")
def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    from .serialization import load
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead",
                      stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    if _is_legacy_zip_format(cached_file):
        return _legacy_zip_load(cached_file, model_dir, map_location, weights_only)
    return load(cached_file, map_location=map_location, weights_only=weights_only)


torch_function("torch.utils.model_zoo.load_url", note="torch.hub.load_state_dict_from_url")(
           load_state_dict_from_url)
