"""The sparse-layout Tensor queries torch code asks of any tensor, with torch's answers.

The facade makes strided (dense) tensors only: ``torch.sparse_coo_tensor``,
``Tensor.to_sparse``, ``torch.sparse.*`` stay gaps (facade/gaps.toml "torch.sparse").  Paddle's
``paddle.sparse`` tensors are no base for them: they reject most dense ops, have no bool or
0-d form, keep no coalesced flag (torch's ``indices()`` refuses an uncoalesced tensor), and on
Paddle 2.6 ``sparse * 2`` aborts the process, so a torch sparse tensor built on them would be
half-working.  What torch code asks before it branches is answered here as torch does for a
strided tensor: ``is_sparse`` / ``is_sparse_csr`` are False (Paddle's are methods, and a bound
method is truthy: ``if x.is_sparse:`` took the sparse branch for every tensor), ``to_dense()``
returns the tensor (Paddle's raises on a dense one), ``indices()``, ``values()``,
``coalesce()``... raise torch's errors instead of Paddle's SystemError/NotImplementedError.
A Paddle sparse tensor handed to scoped code: ``is_sparse`` / ``is_sparse_csr`` say what it is,
``to_dense()`` gives torch's dense value (duplicate COO entries summed; Paddle's keeps one of
them), anything else NotProvidedError."""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.Tensor: _indices _nnz _values ccol_indices coalesce col_indices crow_indices indices
        is_coalesced is_sparse is_sparse_csr row_indices to_dense values
""")

import paddle

from ..errors import NotProvidedError
from .dtypes import DTYPE_TYPE, to_paddle
from .registry import tensor_method


def _paddle_sparse(t) -> bool:
    return t.is_sparse_coo() or t.is_sparse_csr()


@tensor_method("is_sparse", note="False for the facade's (strided) tensors; True for a Paddle "
                                 "sparse COO tensor")
@property
def is_sparse(self):
    return self.is_sparse_coo()


@tensor_method("is_sparse_csr", note="False for the facade's (strided) tensors; True for a "
                                     "Paddle sparse CSR tensor")
@property
def is_sparse_csr(self):
    return self.is_sparse_csr()  # a facade frame: Paddle's own method


@tensor_method("to_dense", note="the tensor itself (cast when dtype= differs); a Paddle sparse "
                                "tensor's dense value with duplicate entries summed")
def to_dense(self, dtype=None, *, masked_grad=None):
    if dtype is not None and not isinstance(dtype, DTYPE_TYPE):
        raise TypeError(f"to_dense(): argument 'dtype' (position 1) must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    out = self
    if self.is_sparse_coo():
        out = self.coalesce().to_dense()
    elif self.is_sparse_csr():
        out = self.to_dense()
    dtype = to_paddle(dtype)
    return out if dtype is None or out.dtype == dtype else out.astype(dtype)


def _query(name: str, needs: str):
    """``Tensor.<name>()``: torch's error on a strided tensor (``needs``: the layout the
    query needs, as torch's message words it), NotProvidedError on a Paddle sparse one."""
    def method(self):
        if _paddle_sparse(self):
            raise NotProvidedError(f"torch.Tensor.{name} (of a Paddle sparse tensor: the facade "
                                   f"has no torch sparse layouts)")
        raise RuntimeError(f"{name} expected {needs} layout but got Strided")
    method.__name__ = method.__qualname__ = name
    return tensor_method(name, note="torch's error: the facade's tensors are strided")(method)


for _name, _needs in (("indices", "sparse coordinate tensor"), ("values", "sparse tensor"),
                       ("coalesce", "sparse coordinate tensor"),
                       ("is_coalesced", "sparse coordinate tensor"),
                       ("crow_indices", "sparse row compressed tensor"),
                       ("col_indices", "sparse row compressed tensor"),
                       ("ccol_indices", "sparse column compressed tensor"),
                       ("row_indices", "sparse column compressed tensor")):
    _query(_name, _needs)


def _no_kernel(name: str):
    """``_indices()`` / ``_values()`` / ``_nnz()``: torch has no strided kernel for them."""
    def method(self):
        if _paddle_sparse(self):
            raise NotProvidedError(f"torch.Tensor.{name} (of a Paddle sparse tensor: the facade "
                                   f"has no torch sparse layouts)")
        raise NotImplementedError(f"Could not run 'aten::{name}' with arguments from the 'CPU' "
                                  f"backend. This could be because the operator doesn't exist "
                                  f"for this backend (torchproxy: the facade's tensors are "
                                  f"strided; torch has no strided kernel for it)")
    method.__name__ = method.__qualname__ = name
    return tensor_method(name, note="torch's NotImplementedError: no strided kernel")(method)


for _name in ("_indices", "_values", "_nnz"):
    _no_kernel(_name)
