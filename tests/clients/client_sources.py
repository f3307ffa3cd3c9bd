"""Third-party model sources for the whole-program tests, fetched at test time, never vendored.

Every file is pinned by sha256.  A source is looked for, in order, in
1. the cache ``build/client-sources/<name>-<pin>/`` (build/ is gitignored);
2. GitHub projects: ``$TORCHPROXY_GIT_MIRRORS/<owner>+<name>/repo`` (a git directory, bare or
   with a work tree in ``repo/.git``; the pinned commit must be in it), then GitHub's codeload
   archive of the pinned commit;
   PyPI projects: ``pip download --no-deps <dist>==<version>`` (the pinned archive).
When none is reachable, :class:`SourcesMissing` says in one line what is needed and how to
provide it.
"""
from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
import urllib.request
import zipfile
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.path.join(ROOT, "build", "client-sources")
MIRRORS_ENV = "TORCHPROXY_GIT_MIRRORS"


class SourcesMissing(Exception):
    pass


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class GitHubSource:
    owner: str
    repo: str
    commit: str
    files: dict  # path in the repository -> sha256

    @property
    def key(self):
        return f"{self.repo}-{self.commit[:12]}"

    def _from_mirror(self):
        base = os.environ.get(MIRRORS_ENV)
        if not base:
            return None
        for git_dir in ("repo", os.path.join("repo", ".git")):
            path = os.path.join(base, f"{self.owner}+{self.repo}", git_dir)
            if not os.path.isdir(path):
                continue
            got = {}
            for name in self.files:
                r = subprocess.run(["git", "--git-dir", path, "show", f"{self.commit}:{name}"],
                                   capture_output=True, timeout=60)
                if r.returncode:
                    return None  # this mirror lacks the pinned commit
                got[name] = r.stdout
            return got
        return None

    def _from_codeload(self):
        url = f"https://codeload.github.com/{self.owner}/{self.repo}/tar.gz/{self.commit}"
        try:
            with urllib.request.urlopen(url, timeout=30) as resp:
                data = resp.read()
        except OSError:
            return None
        got = {}
        with tarfile.open(fileobj=io.BytesIO(data)) as tf:
            for m in tf.getmembers():
                # members are "<repo>-<commit>/<path>"
                rel = m.name.split("/", 1)[1] if "/" in m.name else ""
                if rel in self.files and m.isfile():
                    got[rel] = tf.extractfile(m).read()
        return got

    def fetch(self) -> str:
        dest = os.path.join(CACHE, self.key)
        if _cache_ok(dest, self.files):
            return dest
        got = self._from_mirror() or self._from_codeload()
        if not got:
            raise SourcesMissing(
                f"{self.owner}/{self.repo}@{self.commit[:12]} is not reachable: set "
                f"{MIRRORS_ENV} to a directory holding {self.owner}+{self.repo}/repo (a git "
                f"mirror with that commit), allow https://codeload.github.com, or put the files "
                f"{sorted(self.files)} in {dest}")
        _store(dest, got, self.files, f"{self.owner}/{self.repo}@{self.commit}")
        return dest


@dataclass(frozen=True)
class PyPISource:
    dist: str
    version: str
    archive: str  # file name pip downloads
    archive_sha256: str
    files: dict  # path inside the archive -> sha256

    @property
    def key(self):
        return f"{self.dist}-{self.version}"

    def fetch(self) -> str:
        dest = os.path.join(CACHE, self.key)
        if _cache_ok(dest, self.files):
            return dest
        dl = os.path.join(CACHE, "downloads")
        os.makedirs(dl, exist_ok=True)
        path = os.path.join(dl, self.archive)
        if not (os.path.isfile(path) and _sha256_file(path) == self.archive_sha256):
            r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                                f"{self.dist}=={self.version}", "-d", dl],
                               capture_output=True, text=True, timeout=300)
            if r.returncode or not os.path.isfile(path):
                msg = (r.stderr or r.stdout).strip().splitlines()[-1:] or [""]
                raise SourcesMissing(f"{self.dist}=={self.version} could not be downloaded from "
                                     f"the package index ({msg[0][:200]}); put {self.archive} in "
                                     f"{dl}")
        got_sha = _sha256_file(path)
        if got_sha != self.archive_sha256:
            raise AssertionError(f"{path} has sha256 {got_sha}, not the pinned "
                                 f"{self.archive_sha256}")
        got = {}
        if self.archive.endswith(".whl") or self.archive.endswith(".zip"):
            with zipfile.ZipFile(path) as zf:
                for name in self.files:
                    got[name] = zf.read(name)
        else:
            with tarfile.open(path) as tf:
                for name in self.files:
                    got[name] = tf.extractfile(name).read()
        _store(dest, got, self.files, f"{self.archive}")
        return dest


def _sha256_file(path):
    with open(path, "rb") as f:
        return sha256_bytes(f.read())


def _cache_ok(dest, files) -> bool:
    for name, want in files.items():
        p = os.path.join(dest, name)
        if not os.path.isfile(p) or _sha256_file(p) != want:
            return False
    return True


def _store(dest, got, files, origin):
    for name, want in files.items():
        data = got.get(name)
        if data is None:
            raise AssertionError(f"{origin} has no file {name}")
        have = sha256_bytes(data)
        if have != want:
            # a pinned file that changed is a failure, not a missing source
            raise AssertionError(f"{origin}:{name} has sha256 {have}, not the pinned {want}")
    for name, data in got.items():
        p = os.path.join(dest, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        tmp = p + ".part"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, p)
