/* torchproxy._cdlpack: the DLPack C exchange API (`__dlpack_c_exchange_api__`) for Paddle 2.6
 * tensors, so that tvm-ffi (FlashInfer's and TileLang's kernels) takes a Paddle tensor the way
 * it takes a torch tensor (issue 26).
 *
 * Why: Paddle >= 3.2 puts this capsule on paddle.Tensor itself; Paddle 2.6 has only
 * paddle.utils.dlpack.to_dlpack.  Without it tvm-ffi reads a 2.6 tensor through the facade's
 * Python `__dlpack__` (a Python frame, Paddle's capsule, tvm-ffi's capsule import) and, worse,
 * never learns Paddle's current stream: its `__tvm_ffi_env_stream__` protocol is honoured only
 * after an earlier argument set a device, so a call whose tensors are all Paddle's launches on
 * stream 0 unless a Python wrapper sets tvm-ffi's environment stream around every call
 * (integrations/tvm_ffi.py call_on_paddle_stream, 4.5 us per call on an H100 host).  With this
 * table tvm-ffi's argument setter (TVMFFIPyArgSetterDLPackExchangeAPI_, tvm-ffi >= 0.1.5) calls
 *   managed_tensor_from_py_object_no_sync: the tensor as a DLManagedTensorVersioned, and
 *   current_work_stream: Paddle's current stream of the tensor's device, which tvm-ffi sets as
 *                        its environment stream for the call and restores after,
 * in C, per tensor, with no Python frame of ours.
 *
 * The export is Paddle's own: `x.get_tensor()._to_dlpack()`, the call paddle.utils.dlpack.
 * to_dlpack ends in (2.6 and 3.x), whose legacy DLManagedTensor owns a DenseTensor sharing the
 * allocation: the view stays valid if the Paddle tensor is later resized in place or freed,
 * exactly as with Paddle's to_dlpack; its strides are replaced by Paddle's own where they
 * differ (paddle_strides: 2.6's export writes compact strides for strided views), and its
 * dtype says bool for a bool tensor (2.6 exports uint8: is_paddle_bool).  It is wrapped in a versioned struct whose deleter calls
 * Paddle's deleter (no Python: safe on any thread, without the GIL).
 *
 * Eighth round: where integrations/tvm_ffi.install_fast_export checked it, the export goes
 * through torchproxy._cptensor instead (Paddle's exported C++ tensor API: no pybind call but
 * data_ptr(), 0.1 us instead of 1.1-1.7), which holds the tensor object as torch's export holds
 * the tensor; an in-place resize that reallocates then leaves the view dangling, as in torch,
 * where the export above keeps the old allocation alive.  Tensors it does not read come here.
 *
 * The stream comes from a Python callable set by integrations/tvm_ffi.py (set_stream_reader):
 * paddle_shims.cached_stream_handle, Paddle's current stream read once per stream switch; its
 * cache's dict (paddle_shims.STREAMS._handles) is read first, so a call between switches runs
 * no Python (tenth round).
 *
 * Not provided (NULL, allowed by tvm-ffi): managed_tensor_allocator (tvm-ffi then allocates
 * outputs itself, as before), managed_tensor_to_py_object_no_sync (a tensor a tvm-ffi function
 * returns stays a tvm_ffi.Tensor, as before), dltensor_from_py_object_no_sync.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

#include "_tensor_api.h"

/* -- DLPack 1.x ABI (dlpack.h, the parts used here) ---------------------------------------- */
typedef struct { uint32_t major, minor; } DLPackVersion;
typedef struct { int32_t device_type, device_id; } DLDevice;
typedef struct { uint8_t code, bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {  /* legacy (unversioned): what Paddle's capsule holds */
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;
    struct DLPackExchangeAPIHeader *prev_api;
} DLPackExchangeAPIHeader;
typedef struct {
    DLPackExchangeAPIHeader header;
    void *managed_tensor_allocator;
    int (*managed_tensor_from_py_object_no_sync)(void *py_object, DLManagedTensorVersioned **out);
    void *managed_tensor_to_py_object_no_sync;
    void *dltensor_from_py_object_no_sync;
    int (*current_work_stream)(int device_type, int32_t device_id, void **out_stream);
} DLPackExchangeAPI;

#define TPX_DLPACK_MAJOR 1
#define TPX_DLPACK_MINOR 0  /* the struct layout above is DLPack 1.0's */
#define KDL_CPU 1
#define KDL_UINT 1
#define KDL_BOOL 6

static PyObject *s_get_tensor = NULL, *s_to_dlpack = NULL, *s_get_strides = NULL, *s_dtype = NULL;
static PyObject *g_paddle_bool = NULL;  /* paddle.bool, looked up on first need */
static PyObject *g_stream_reader = NULL;  /* callable(device_id) -> int handle, or NULL */
/* the reader's cache (paddle_shims.STREAMS, a StreamHandleCache), or NULL: its `_handles`
 * dict {device index: handle} holds only handles still current (the cache empties it, by
 * replacing it, on every stream switch), so a hit there is the reader's answer without the
 * reader's two Python frames (0.15-0.2 us per tvm-ffi call on an H100 host); a miss calls the
 * reader, which fills it */
static PyObject *g_stream_cache = NULL;
static PyObject *g_handles_name = NULL;  /* "_handles", interned */
static unsigned long long g_exports = 0;  /* tensors exported: tests and the wrappers' probe */

static void versioned_deleter(DLManagedTensorVersioned *self) {
    DLManagedTensor *legacy = (DLManagedTensor *)self->manager_ctx;
    if (legacy != NULL && legacy->deleter != NULL)
        legacy->deleter(legacy);
    free(self);
}

/* Paddle's legacy capsule of `obj` (a new reference) or NULL with an error */
static PyObject *paddle_capsule(PyObject *obj) {
    PyObject *dense = PyObject_CallMethodNoArgs(obj, s_get_tensor);
    if (dense == NULL)
        return NULL;
    PyObject *cap = PyObject_CallMethodNoArgs(dense, s_to_dlpack);
    Py_DECREF(dense);
    return cap;
}

/* Paddle's strides of `obj` into out[ndim] (a new list read through get_strides()); 1 when
 * they differ from `dl`'s (its strides, or the compact ones when NULL) at a dim of size > 1,
 * 0 when they agree, -1 with an error.  Paddle 2.6's _to_dlpack writes compact strides for
 * every tensor, so a strided view (x.T, x[1:3, 1:3]) would be read as another tensor's
 * elements (paddle.utils.dlpack.to_dlpack has that defect; torch's export gives the real
 * strides). */
static int paddle_strides(PyObject *obj, const DLTensor *dl, int64_t *out) {
    PyObject *l = PyObject_CallMethodNoArgs(obj, s_get_strides);
    if (l == NULL)
        return -1;
    PyObject *seq = PySequence_Fast(l, "get_strides() returned no sequence");
    Py_DECREF(l);
    if (seq == NULL)
        return -1;
    int differs = 0;
    if (PySequence_Fast_GET_SIZE(seq) != dl->ndim) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_BufferError, "Paddle tensor of %d dims has %zd strides",
                     (int)dl->ndim, PySequence_Fast_GET_SIZE(seq));
        return -1;
    }
    int64_t compact = 1;
    for (int i = dl->ndim - 1; i >= 0; i--) {
        long long st = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (st == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        out[i] = st;
        int64_t theirs = dl->strides != NULL ? dl->strides[i] : compact;
        if (dl->shape[i] > 1 && st != theirs)
            differs = 1;
        compact *= dl->shape[i];
    }
    Py_DECREF(seq);
    return differs;
}

/* 1 when `obj`'s dtype is paddle.bool, 0 when not, -1 with an error.  Paddle 2.6's _to_dlpack
 * exports bool as uint8 (kDLUInt, 8); torch and Paddle 3.x export kDLBool, which kernels
 * checking their argument's dtype expect.  Asked only of 8-bit unsigned exports. */
static int is_paddle_bool(PyObject *obj) {
    if (g_paddle_bool == NULL) {
        PyObject *paddle = PyImport_ImportModule("paddle");
        if (paddle == NULL)
            return -1;
        g_paddle_bool = PyObject_GetAttrString(paddle, "bool");
        Py_DECREF(paddle);
        if (g_paddle_bool == NULL)
            return -1;
    }
    PyObject *dt = PyObject_GetAttr(obj, s_dtype);
    if (dt == NULL)
        return -1;
    int r = PyObject_RichCompareBool(dt, g_paddle_bool, Py_EQ);
    Py_DECREF(dt);
    return r;
}

/* torchproxy._cptensor's export through Paddle's C++ tensor API (issue 26, eighth round; its
 * _paddle_tensor.c says how, and what it owns), set by set_tensor_api() once
 * integrations/tvm_ffi.py checked it against the export below on every dtype and a few views;
 * NULL otherwise.  Tensors it does not read come here unchanged. */
static TpxTensorAPISlot g_tapi = {NULL, NULL, NULL};

/* Paddle's own export, made versioned and corrected (strides, bool); the Python error on failure */
static int paddle_export(PyObject *obj, DLManagedTensorVersioned **out);

/* called by tvm-ffi with the GIL held; -1 with a Python error set on failure */
static int from_py_object(void *py_object, DLManagedTensorVersioned **out) {
    PyObject *obj = (PyObject *)py_object;
    if (g_tapi.api != NULL) {
        /* _cptensor's TpxDLMTV and this file's DLManagedTensorVersioned: DLPack's one layout */
        int r = g_tapi.api->export_dl(obj, g_tapi.type, (struct TpxDLMTV **)out);
        if (r != 0) {
            if (r == 1)
                g_exports++;
            return r == 1 ? 0 : -1;
        }
    }
    return paddle_export(obj, out);
}

static int paddle_export(PyObject *obj, DLManagedTensorVersioned **out) {
    PyObject *cap = paddle_capsule(obj);
    if (cap == NULL)
        return -1;
    DLManagedTensor *legacy = (DLManagedTensor *)PyCapsule_GetPointer(cap, "dltensor");
    if (legacy == NULL) {
        Py_DECREF(cap);
        return -1;
    }
    int32_t ndim = legacy->dl_tensor.ndim;
    /* one block: the versioned struct, then room for strides of its own */
    DLManagedTensorVersioned *v = (DLManagedTensorVersioned *)malloc(
        sizeof *v + (size_t)(ndim > 0 ? ndim : 0) * sizeof(int64_t));
    if (v == NULL) {
        Py_DECREF(cap);
        PyErr_NoMemory();
        return -1;
    }
    int64_t *strides = (int64_t *)(v + 1);
    int differs = ndim > 0 ? paddle_strides(obj, &legacy->dl_tensor, strides) : 0;
    int is_bool = 0;
    if (differs >= 0 && legacy->dl_tensor.dtype.code == KDL_UINT &&
            legacy->dl_tensor.dtype.bits == 8 && legacy->dl_tensor.dtype.lanes == 1) {
        is_bool = is_paddle_bool(obj);
        if (is_bool < 0)
            differs = -1;
    }
    /* the capsule gives up its tensor (its destructor frees only a "dltensor"-named one,
     * the DLPack convention for a consumed capsule); from here `v` owns it */
    if (differs < 0 || PyCapsule_SetName(cap, "used_dltensor") != 0) {
        free(v);
        Py_DECREF(cap);  /* still "dltensor" (SetName failed or never ran): it frees `legacy` */
        return -1;
    }
    Py_DECREF(cap);
    v->version.major = TPX_DLPACK_MAJOR;
    v->version.minor = TPX_DLPACK_MINOR;
    v->manager_ctx = legacy;
    v->deleter = versioned_deleter;
    v->flags = 0;
    v->dl_tensor = legacy->dl_tensor;  /* shape stays owned by `legacy` */
    if (differs)
        v->dl_tensor.strides = strides;
    if (is_bool)
        v->dl_tensor.dtype.code = KDL_BOOL;
    g_exports++;
    *out = v;
    return 0;
}

/* called by tvm-ffi with the GIL held, for the first non-CPU tensor of a call */
static int current_work_stream(int device_type, int32_t device_id, void **out_stream) {
    if (device_type == KDL_CPU || g_stream_reader == NULL) {
        *out_stream = NULL;
        return 0;
    }
    PyObject *idx = PyLong_FromLong(device_id);
    if (idx == NULL)
        return -1;
    PyObject *h = NULL;
    if (g_stream_cache != NULL) {
        PyObject *d = PyObject_GetAttr(g_stream_cache, g_handles_name);
        if (d == NULL) {
            Py_DECREF(idx);
            return -1;
        }
        if (PyDict_CheckExact(d)) {
            h = PyDict_GetItemWithError(d, idx);  /* borrowed */
            Py_XINCREF(h);
        }
        Py_DECREF(d);
        if (h == NULL && PyErr_Occurred()) {
            Py_DECREF(idx);
            return -1;
        }
    }
    if (h == NULL)
        h = PyObject_CallOneArg(g_stream_reader, idx);
    Py_DECREF(idx);
    if (h == NULL)
        return -1;
    void *p = PyLong_AsVoidPtr(h);
    Py_DECREF(h);
    if (p == NULL && PyErr_Occurred())
        return -1;
    *out_stream = p;
    return 0;
}

static DLPackExchangeAPI g_api = {
    {{TPX_DLPACK_MAJOR, TPX_DLPACK_MINOR}, NULL},
    NULL,
    from_py_object,
    NULL,
    NULL,
    current_work_stream,
};

/* -- module functions ------------------------------------------------------------------------ */
static PyObject *m_capsule(PyObject *m, PyObject *noargs) {
    /* a new capsule each call; the table itself is static (tvm-ffi keeps the pointer) */
    return PyCapsule_New(&g_api, "dlpack_exchange_api", NULL);
}

static PyObject *m_set_stream_reader(PyObject *m, PyObject *args) {
    PyObject *fn, *cache = Py_None;
    if (!PyArg_ParseTuple(args, "O|O:set_stream_reader", &fn, &cache))
        return NULL;
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "set_stream_reader: a callable or None");
        return NULL;
    }
    if (g_handles_name == NULL && (g_handles_name = PyUnicode_InternFromString("_handles")) == NULL)
        return NULL;
    Py_XSETREF(g_stream_reader, fn == Py_None ? NULL : Py_NewRef(fn));
    /* no reader, no cache: the cache only ever stands in for the reader it belongs to */
    Py_XSETREF(g_stream_cache, fn == Py_None || cache == Py_None ? NULL : Py_NewRef(cache));
    Py_RETURN_NONE;
}

static PyObject *m_exports(PyObject *m, PyObject *noargs) {
    return PyLong_FromUnsignedLongLong(g_exports);
}

/* the exchange functions called as tvm-ffi calls them, for tests: export(x) -> (address of
 * the DLManagedTensorVersioned, to free with release()), stream(device_type, device_id) */
static PyObject *m_export(PyObject *m, PyObject *obj) {
    DLManagedTensorVersioned *v = NULL;
    if (g_api.managed_tensor_from_py_object_no_sync(obj, &v) != 0)
        return NULL;
    return PyLong_FromVoidPtr(v);
}

static PyObject *m_release(PyObject *m, PyObject *addr) {
    DLManagedTensorVersioned *v = (DLManagedTensorVersioned *)PyLong_AsVoidPtr(addr);
    if (v == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "release: a null address");
        return NULL;
    }
    v->deleter(v);
    Py_RETURN_NONE;
}

static PyObject *m_stream(PyObject *m, PyObject *args) {
    int device_type, device_id;
    if (!PyArg_ParseTuple(args, "ii", &device_type, &device_id))
        return NULL;
    void *s = NULL;
    if (g_api.current_work_stream(device_type, device_id, &s) != 0)
        return NULL;
    return PyLong_FromVoidPtr(s);
}

/* export_paddle(x): export(x) through Paddle's own export, whatever set_tensor_api set */
static PyObject *m_export_paddle(PyObject *m, PyObject *obj) {
    DLManagedTensorVersioned *v = NULL;
    if (paddle_export(obj, &v) != 0)
        return NULL;
    g_exports++;
    return PyLong_FromVoidPtr(v);
}

/* describe(address) -> (data + byte_offset, device_type, device_id, (code, bits, lanes),
 * shape, strides or None): what a consumer reads, for the install-time check and tests */
static PyObject *m_describe(PyObject *m, PyObject *addr) {
    DLManagedTensorVersioned *v = (DLManagedTensorVersioned *)PyLong_AsVoidPtr(addr);
    if (v == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "describe: a null address");
        return NULL;
    }
    DLTensor *t = &v->dl_tensor;
    PyObject *shape = PyTuple_New(t->ndim), *strides = NULL;
    if (shape == NULL)
        return NULL;
    for (int i = 0; i < t->ndim; i++)
        PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t->shape[i]));
    if (t->strides != NULL) {
        strides = PyTuple_New(t->ndim);
        if (strides == NULL) {
            Py_DECREF(shape);
            return NULL;
        }
        for (int i = 0; i < t->ndim; i++)
            PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(t->strides[i]));
    }
    else {
        strides = Py_NewRef(Py_None);
    }
    return Py_BuildValue("(Kii(iii)NN)", (unsigned long long)(uintptr_t)t->data + t->byte_offset,
                         (int)t->device.device_type, (int)t->device.device_id,
                         (int)t->dtype.code, (int)t->dtype.bits, (int)t->dtype.lanes,
                         shape, strides);
}

/* set_tensor_api(torchproxy._cptensor.api(), paddle.Tensor) / set_tensor_api(None, None)
 * (_tensor_api.h): an API with export_dl */
static PyObject *m_set_tensor_api(PyObject *m, PyObject *args) {
    return tpx_set_tensor_api(&g_tapi, args, 1, 1);
}

static PyObject *m_tensor_api_set(PyObject *m, PyObject *noargs) {
    return PyBool_FromLong(g_tapi.api != NULL);
}

static PyMethodDef methods[] = {
    {"export_paddle", m_export_paddle, METH_O,
     "Paddle's own export of x (get_tensor()._to_dlpack(), corrected): the address."},
    {"describe", m_describe, METH_O,
     "describe(address) -> (data, device_type, device_id, (code, bits, lanes), shape, strides)."},
    {"set_tensor_api", m_set_tensor_api, METH_VARARGS,
     "set_tensor_api(torchproxy._cptensor.api(), paddle.Tensor): exports through Paddle's C++ "
     "tensor API where it reads the tensor; set_tensor_api(None, None): Paddle's export only."},
    {"tensor_api_set", m_tensor_api_set, METH_NOARGS, "tensor_api_set() -> bool"},
    {"capsule", m_capsule, METH_NOARGS,
     "A PyCapsule named 'dlpack_exchange_api' of the static DLPackExchangeAPI table."},
    {"set_stream_reader", m_set_stream_reader, METH_VARARGS,
     "set_stream_reader(callable(device_id) -> raw stream handle, cache=None): what "
     "current_work_stream answers (None: 0); cache._handles, a dict of handles still current "
     "(paddle_shims.STREAMS), is read first."},
    {"exports", m_exports, METH_NOARGS, "How many tensors the table has exported."},
    {"export", m_export, METH_O, "managed_tensor_from_py_object_no_sync(x): the address."},
    {"release", m_release, METH_O, "Call the deleter of an address export() returned."},
    {"stream", m_stream, METH_VARARGS, "current_work_stream(device_type, device_id)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "torchproxy._cdlpack",
    "The DLPack C exchange API for Paddle 2.6 tensors (see torchproxy/_dlpack_exchange.c).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__cdlpack(void) {
    s_get_tensor = PyUnicode_InternFromString("get_tensor");
    s_to_dlpack = PyUnicode_InternFromString("_to_dlpack");
    s_get_strides = PyUnicode_InternFromString("get_strides");
    s_dtype = PyUnicode_InternFromString("dtype");
    if (s_get_tensor == NULL || s_to_dlpack == NULL || s_get_strides == NULL || s_dtype == NULL)
        return NULL;
    return PyModule_Create(&moduledef);
}
