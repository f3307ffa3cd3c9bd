/* torchproxy._cptensor: `x.dtype` of a Paddle 2.6 tensor without pybind's enum cast (issue 26,
 * eighth round).
 *
 * Why: Paddle 2.6's `dtype` getter converts the tensor's phi::DataType to a proto VarType and
 * casts it through pybind11, which builds a new enum instance on every read: 0.19 us on a
 * desktop host, 0.25 us on the H100 host (torch: 0.04-0.05).  Triton's argument specialiser
 * reads `arg.dtype` of every tensor argument on every launch, kernel wrappers compare dtypes,
 * and a fresh object defeats every identity shortcut (dict lookups, `is`).
 *
 * How: Paddle exports its C++ tensor API for custom operators (PADDLE_API, paddle/phi/api/
 * include/tensor.h): `paddle::Tensor::defined() const`, `is_dense_tensor() const` and
 * `dtype() const` are plain exported functions of libpaddle.so (2.6) or libphi_core.so (3.x);
 * a Paddle eager tensor object is `{PyObject_HEAD; paddle::Tensor tensor; ...}` (paddle/fluid/
 * pybind/eager.h, the layout Paddle's own custom-op casters read).  The getter here calls those
 * three functions (none can throw: a null impl is caught by defined(), the other two read a
 * field) and returns the *canonical* dtype object for the code (paddle.float32 itself), from a
 * table the Python side builds by asking Paddle's own getter about one tensor of each dtype.
 * Anything else -- an undefined tensor, a non-dense one (Paddle answers FP32 / RAW / STRING
 * there), a code the table lacks, an object that is not a Paddle tensor -- is Paddle's own
 * getter's to answer, unchanged.  The answer is equal (==, hash, type) to Paddle's; only its
 * identity is stable now.
 *
 * torchproxy/facade/fast_dtype.py installs the descriptor at enable() after checking, on a
 * tensor of every dtype, that it answers what Paddle answers; disable() puts Paddle's back.
 *
 * The same API answers the C dispatcher's `x.device` fast path (torchproxy/_dispatch.c
 * fast_device; 0.74 us on the H100 host through Paddle's pybind Place object and two pybind
 * calls, torch 0.07): `const phi::Place& paddle::Tensor::place() const` returns a reference
 * into the tensor's allocation, whose layout paddle/phi/common/place.h (shipped with 2.6 and
 * 3.x) declares as {int8_t device; AllocationType alloc_type_ (an int8_t enum); ...}.  It is read
 * only for a defined, dense, *initialized* tensor (DenseTensor::place() throws without an
 * allocation; nothing here may throw through C).  The dispatcher gets these readers through the
 * capsule api() (struct TpxTensorAPI below), installed by fast_dtype.py after a check on a
 * CPU tensor.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_tensor_api.h"

/* phi::DataType is an `enum class` with int as its underlying type; C++ bool is C's _Bool in
 * every ABI CPython supports here (x86-64 and aarch64 SysV); `this` is the first argument. */
typedef int (*tensor_int_fn)(const void *self);
typedef bool (*tensor_bool_fn)(const void *self);

static const char SYM_DEFINED[] = "_ZNK6paddle6Tensor7definedEv";
static const char SYM_DENSE[] = "_ZNK6paddle6Tensor15is_dense_tensorEv";
static const char SYM_DTYPE[] = "_ZNK6paddle6Tensor5dtypeEv";
static const char SYM_INITIALIZED[] = "_ZNK6paddle6Tensor11initializedEv";
static const char SYM_PLACE[] = "_ZNK6paddle6Tensor5placeEv";
static const char SYM_DIMS[] = "_ZNK6paddle6Tensor4dimsEv";
static const char SYM_STRIDES[] = "_ZNK6paddle6Tensor7stridesEv";

typedef const int8_t *(*tensor_place_fn)(const void *self);  /* const phi::Place& */

static tensor_bool_fn f_defined = NULL, f_dense = NULL, f_initialized = NULL;
static tensor_int_fn f_dtype = NULL;
static tensor_place_fn f_place = NULL;  /* NULL where not exported: no place reading */
/* `const common::DDim& dims() const` / `strides() const`: a DDim is {int64_t dim_[9]; int
 * rank_} (paddle/common/ddim.h, kMaxRank 9): the sizes first, the rank at byte 72 */
typedef const int64_t *(*tensor_ddim_fn)(const void *self);
static tensor_ddim_fn f_dims = NULL, f_strides = NULL;
#define DDIM_MAX 9
#define DDIM_RANK(d) (*(const int *)((const char *)(d) + DDIM_MAX * sizeof(int64_t)))

/* the layout prefix of Paddle's TensorObject: the paddle::Tensor follows the object header */
typedef struct {
    PyObject_HEAD
    void *tensor;  /* only its address is used: &obj->tensor is the paddle::Tensor */
} TensorObjectPrefix;

#define TENSOR_OF(o) ((const void *)&((TensorObjectPrefix *)(o))->tensor)
#define TABLE_N 64  /* phi::DataType has fewer than 32 members in 2.6 and 3.x */

/* -- the descriptor ---------------------------------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    PyObject *orig;           /* Paddle's own descriptor (a getset_descriptor) */
    PyTypeObject *tensor_type; /* paddle.Tensor: only its instances are read here */
    PyObject *table[TABLE_N]; /* phi::DataType code -> canonical Paddle dtype, or NULL */
} DtypeDescr;

static PyTypeObject DtypeDescrType;

/* The table's object for a Paddle tensor `obj`, borrowed; NULL when Paddle's getter answers. */
static PyObject *lookup(DtypeDescr *d, PyObject *obj) {
    if (!PyObject_TypeCheck(obj, d->tensor_type))
        return NULL;
    const void *t = TENSOR_OF(obj);
    if (!f_defined(t) || !f_dense(t))
        return NULL;
    int code = f_dtype(t);
    return (code >= 0 && code < TABLE_N) ? d->table[code] : NULL;
}

static PyObject *descr_get(PyObject *self, PyObject *obj, PyObject *type) {
    DtypeDescr *d = (DtypeDescr *)self;
    if (obj != NULL && obj != Py_None) {
        PyObject *r = lookup(d, obj);
        if (r != NULL)
            return Py_NewRef(r);
    }
    descrgetfunc g = Py_TYPE(d->orig)->tp_descr_get;
    if (g == NULL)
        return Py_NewRef(d->orig);
    return g(d->orig, obj, type);
}

static int descr_set(PyObject *self, PyObject *obj, PyObject *value) {
    /* Paddle's answer (its getter has no setter: "attribute 'dtype' ... is not writable") */
    DtypeDescr *d = (DtypeDescr *)self;
    descrsetfunc s = Py_TYPE(d->orig)->tp_descr_set;
    if (s == NULL) {
        PyErr_SetString(PyExc_AttributeError, "readonly attribute");
        return -1;
    }
    return s(d->orig, obj, value);
}

static int descr_traverse(DtypeDescr *d, visitproc visit, void *arg) {
    Py_VISIT(d->orig);
    Py_VISIT(d->tensor_type);
    for (int i = 0; i < TABLE_N; i++)
        Py_VISIT(d->table[i]);
    return 0;
}

static int descr_clear(DtypeDescr *d) {
    Py_CLEAR(d->orig);
    Py_CLEAR(d->tensor_type);
    for (int i = 0; i < TABLE_N; i++)
        Py_CLEAR(d->table[i]);
    return 0;
}

static void descr_dealloc(DtypeDescr *d) {
    PyObject_GC_UnTrack(d);
    descr_clear(d);
    Py_TYPE(d)->tp_free((PyObject *)d);
}

/* DtypeDescr(orig, tensor_type, table: dict[int, dtype]) */
static PyObject *descr_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *orig, *tensor_type, *table;
    if (!PyArg_ParseTuple(args, "OO!O!:DtypeDescr", &orig, &PyType_Type, &tensor_type,
                          &PyDict_Type, &table))
        return NULL;
    if (f_dtype == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "torchproxy._cptensor: bind() found no Paddle "
                        "tensor API");
        return NULL;
    }
    DtypeDescr *d = (DtypeDescr *)type->tp_alloc(type, 0);
    if (d == NULL)
        return NULL;
    d->orig = Py_NewRef(orig);
    d->tensor_type = (PyTypeObject *)Py_NewRef(tensor_type);
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(table, &pos, &k, &v)) {
        long code = PyLong_AsLong(k);
        if (code == -1 && PyErr_Occurred())
            goto fail;
        if (code < 0 || code >= TABLE_N) {
            PyErr_Format(PyExc_ValueError, "dtype code %ld out of range", code);
            goto fail;
        }
        Py_XSETREF(d->table[code], Py_NewRef(v));
    }
    return (PyObject *)d;
fail:
    Py_DECREF(d);
    return NULL;
}

static PyObject *descr_get_orig(DtypeDescr *d, void *c) { return Py_NewRef(d->orig); }

static PyObject *descr_get_doc(DtypeDescr *d, void *c) {
    return PyObject_GetAttrString(d->orig, "__doc__");
}

static PyGetSetDef descr_getset[] = {
    {"paddle", (getter)descr_get_orig, NULL, "Paddle's own descriptor", NULL},
    {"__doc__", (getter)descr_get_doc, NULL, NULL, NULL},
    {NULL},
};

static PyTypeObject DtypeDescrType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torchproxy._cptensor.DtypeDescr",
    .tp_basicsize = sizeof(DtypeDescr),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "x.dtype of a Paddle tensor: the canonical dtype object, read through Paddle's "
              "exported C++ tensor API (torchproxy/_paddle_tensor.c)",
    .tp_traverse = (traverseproc)descr_traverse,
    .tp_clear = (inquiry)descr_clear,
    .tp_dealloc = (destructor)descr_dealloc,
    .tp_descr_get = descr_get,
    .tp_descr_set = descr_set,
    .tp_getset = descr_getset,
    .tp_new = descr_new,
};

/* -- module functions ---------------------------------------------------------------------------- */
/* bind(paths): the three functions from the first already-loaded library among `paths` that
 * exports all of them (RTLD_NOLOAD: nothing is loaded here that Paddle did not load).  True
 * when found.  Idempotent. */
static PyObject *m_bind(PyObject *m, PyObject *paths) {
    if (f_dtype != NULL)
        Py_RETURN_TRUE;
    PyObject *seq = PySequence_Fast(paths, "bind() takes a sequence of library paths");
    if (seq == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        const char *p = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
        if (p == NULL) {
            Py_DECREF(seq);
            return NULL;
        }
        void *h = dlopen(p, RTLD_NOW | RTLD_NOLOAD);
        if (h == NULL)
            continue;
        void *a = dlsym(h, SYM_DEFINED), *b = dlsym(h, SYM_DENSE), *c = dlsym(h, SYM_DTYPE);
        if (a != NULL && b != NULL && c != NULL) {
            /* the handle stays open: the library is Paddle's and stays loaded anyway */
            f_defined = (tensor_bool_fn)a;
            f_dense = (tensor_bool_fn)b;
            f_dtype = (tensor_int_fn)c;
            void *d = dlsym(h, SYM_INITIALIZED), *e = dlsym(h, SYM_PLACE);
            if (d != NULL && e != NULL) {
                f_initialized = (tensor_bool_fn)d;
                f_place = (tensor_place_fn)e;
                void *g = dlsym(h, SYM_DIMS), *k = dlsym(h, SYM_STRIDES);
                if (g != NULL && k != NULL) {
                    f_dims = (tensor_ddim_fn)g;
                    f_strides = (tensor_ddim_fn)k;
                }
            }
            Py_DECREF(seq);
            Py_RETURN_TRUE;
        }
        dlclose(h);
    }
    Py_DECREF(seq);
    Py_RETURN_FALSE;
}

/* dtype_code(x, tensor_type): phi::DataType of a dense, defined Paddle tensor, else None */
static PyObject *m_dtype_code(PyObject *m, PyObject *args) {
    PyObject *obj, *tensor_type;
    if (!PyArg_ParseTuple(args, "OO!:dtype_code", &obj, &PyType_Type, &tensor_type))
        return NULL;
    if (f_dtype == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "torchproxy._cptensor: bind() first");
        return NULL;
    }
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)tensor_type))
        Py_RETURN_NONE;
    const void *t = TENSOR_OF(obj);
    if (!f_defined(t) || !f_dense(t))
        Py_RETURN_NONE;
    return PyLong_FromLong(f_dtype(t));
}

/* -- place reading, for the dispatcher ------------------------------------------------------ */
/* 1 and (*type, *device) = the tensor's phi::AllocationType and device index; 0 when `obj` is not
 * read here (not a Paddle tensor of `tensor_type`, undefined, not dense, no allocation, or no
 * place() export).  Never raises, never throws. */
static int read_place(PyObject *obj, PyTypeObject *tensor_type, int *type, int *device) {
    if (f_place == NULL || !PyObject_TypeCheck(obj, tensor_type))
        return 0;
    const void *t = TENSOR_OF(obj);
    if (!f_defined(t) || !f_dense(t) || !f_initialized(t))
        return 0;
    const int8_t *p = f_place(t);
    if (p == NULL)
        return 0;
    *device = p[0];
    *type = p[1];
    return 1;
}

/* -- place objects, for torch.empty_like's hot path (tenth round) -------------------------------
 * Paddle's `x.place` builds a new pybind Place per read (0.15-0.2 us; torch.empty_like passes
 * it to Paddle's kernel, which copies it).  place(x) answers the Place object Paddle gave for the
 * first tensor read here with the same (AllocationType, device): CPU, GPU and GPU-pinned places
 * are those two numbers and nothing else.  Every other tensor (not read: not dense, no
 * allocation, another place type) and every call before set_place_type() installed the tensor
 * type, after the same check as the dispatcher's, is Paddle's own `x.place`.  The objects are
 * only handed to Paddle's kernels (torch.empty_like), never to user code, which could mutate
 * one (Place.set_place). */
#define PLACE_TYPES 4     /* phi::AllocationType: UNDEFINED 0, CPU 1, GPU 2, GPUPINNED 3 */
#define PLACE_DEVICES 64
static PyObject *g_places[PLACE_TYPES][PLACE_DEVICES];
static PyTypeObject *g_place_type = NULL;   /* paddle.Tensor once set_place_type() ran */
static PyObject *g_place_name = NULL;       /* "place", interned */

static void clear_places(void) {
    for (int i = 0; i < PLACE_TYPES; i++)
        for (int j = 0; j < PLACE_DEVICES; j++)
            Py_CLEAR(g_places[i][j]);
}

static PyObject *place_object(PyObject *obj, int pinned_to_cpu) {
    int type, device;
    if (g_place_type != NULL && read_place(obj, g_place_type, &type, &device) && type >= 1
            && type < PLACE_TYPES && device >= 0 && device < PLACE_DEVICES) {
        if (pinned_to_cpu && type == 3)
            Py_RETURN_NONE;
        PyObject *p = g_places[type][device];
        if (p != NULL)
            return Py_NewRef(p);
        p = PyObject_GetAttr(obj, g_place_name);
        if (p != NULL)
            g_places[type][device] = Py_NewRef(p);
        return p;
    }
    return PyObject_GetAttr(obj, g_place_name);
}

static PyObject *m_place(PyObject *m, PyObject *obj) {
    return place_object(obj, 0);
}

/* like_place(x): place(x), but None for a GPU-pinned tensor once set_place_type() ran: Paddle
 * 2.6.2's CUDA build cannot run empty_like on a pinned input ("Place(undefined:0) is not
 * supported", seen on an H100 lease), so torch.empty_like takes its general path for it */
static PyObject *m_like_place(PyObject *m, PyObject *obj) {
    return place_object(obj, 1);
}

/* set_place_type(paddle.Tensor) turns place()'s cache on, set_place_type(None) off (emptied) */
static PyObject *m_set_place_type(PyObject *m, PyObject *tp) {
    if (tp != Py_None && !PyType_Check(tp)) {
        PyErr_SetString(PyExc_TypeError, "set_place_type: the Paddle tensor type or None");
        return NULL;
    }
    if (tp != Py_None && f_place == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "set_place_type: no place() export bound");
        return NULL;
    }
    clear_places();
    Py_XSETREF(g_place_type, tp == Py_None ? NULL : (PyTypeObject *)Py_NewRef(tp));
    return PyBool_FromLong(g_place_type != NULL);
}

/* -- a DLPack export of a Paddle tensor, for torchproxy._cdlpack (issue 26, eighth round) ----
 * _dlpack_exchange.c's export goes through Paddle's `x.get_tensor()._to_dlpack()` (two pybind
 * calls, a DenseTensor copy, a capsule) and `get_strides()`: 1.1-1.7 us per tensor, torch's 0.3.
 * Here: shape and strides from dims() / strides() (references into the tensor's meta), dtype
 * and place from the readers above, the address from Paddle's own data_ptr (a Python call: it
 * raises, where DenseTensor::data() would throw through C), and the tensor object itself held as
 * the owner, released by the deleter (under the GIL, taken if need be; left alone once the
 * interpreter is finalizing).  That is torch's ownership (its export holds the tensor, not a
 * copy of the storage): the view lives while the tensor lives; an in-place resize that
 * reallocates the tensor leaves it dangling, as in torch.  Tensors this does not read (not
 * dense, not allocated, 0-size, a place other than CPU / GPU / pinned, a dtype the table lacks)
 * go to Paddle's export, unchanged. */
typedef struct { uint32_t major, minor; } TpxDLPackVersion;
typedef struct { int32_t device_type, device_id; } TpxDLDevice;
typedef struct { uint8_t code, bits; uint16_t lanes; } TpxDLDataType;
typedef struct {
    void *data;
    TpxDLDevice device;
    int32_t ndim;
    TpxDLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} TpxDLTensor;
typedef struct TpxDLMTV {
    TpxDLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct TpxDLMTV *self);
    uint64_t flags;
    TpxDLTensor dl_tensor;
} TpxDLMTV;

static TpxDLDataType g_dl_dtype[TABLE_N];  /* phi::DataType code -> DLPack dtype */
static char g_dl_dtype_set[TABLE_N];
static PyObject *g_data_ptr = NULL;          /* Paddle's own Tensor.data_ptr */

#if PY_VERSION_HEX >= 0x030D0000
#define TPX_FINALIZING() Py_IsFinalizing()
#else
#define TPX_FINALIZING() _Py_IsFinalizing()
#endif

static void owner_deleter(TpxDLMTV *self) {
    PyObject *owner = (PyObject *)self->manager_ctx;
    if (owner != NULL && Py_IsInitialized() && !TPX_FINALIZING()) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_DECREF(owner);
        PyGILState_Release(g);
    }
    free(self);
}

/* 1: an allocated dense tensor whose every size is > 0; 0: one with a size 0; -1: not read
 * here (not dense, not allocated, an odd rank).  Whether a tensor has elements does not depend
 * on how Paddle's `shape` getter presents the dims (2.6's layout autotune may permute them), so
 * the dims are read as stored.  The dispatcher's data_ptr() fast path asks it (issue 26, ninth
 * round) instead of building Paddle's shape list. */
static int has_elements(PyObject *obj, PyTypeObject *tensor_type) {
    if (f_dims == NULL || !PyObject_TypeCheck(obj, tensor_type))
        return -1;
    const void *t = TENSOR_OF(obj);
    if (!f_defined(t) || !f_dense(t) || !f_initialized(t))
        return -1;
    const int64_t *dims = f_dims(t);
    int ndim = DDIM_RANK(dims);
    if (ndim < 0 || ndim > DDIM_MAX)
        return -1;
    for (int i = 0; i < ndim; i++)
        if (dims[i] <= 0)
            return dims[i] == 0 ? 0 : -1;
    return 1;
}

/* 1: *out is a new DLManagedTensorVersioned owning a reference to obj; 0: not read here (the
 * caller uses Paddle's export); -1: a Python error is set (Paddle's data_ptr raised). */
static int export_dl(PyObject *obj, PyTypeObject *tensor_type, TpxDLMTV **out) {
    if (f_dims == NULL || g_data_ptr == NULL || !PyObject_TypeCheck(obj, tensor_type))
        return 0;
    const void *t = TENSOR_OF(obj);
    if (!f_defined(t) || !f_dense(t) || !f_initialized(t))
        return 0;
    int code = f_dtype(t);
    if (code < 0 || code >= TABLE_N || !g_dl_dtype_set[code])
        return 0;
    const int8_t *place = f_place(t);
    int device_type, device_id = 0;
    switch (place[1]) {  /* phi::AllocationType -> DLDeviceType */
    case 1: device_type = 1; break;                      /* CPU -> kDLCPU */
    case 2: device_type = 2; device_id = place[0]; break;  /* GPU -> kDLCUDA */
    case 3: device_type = 3; break;                      /* GPUPINNED -> kDLCUDAHost */
    default: return 0;
    }
    const int64_t *dims = f_dims(t), *strides = f_strides(t);
    int ndim = DDIM_RANK(dims);
    if (ndim < 0 || ndim > DDIM_MAX || DDIM_RANK(strides) != ndim)
        return 0;
    for (int i = 0; i < ndim; i++)
        if (dims[i] <= 0)
            return 0;  /* 0-size: Paddle 2.6's data_ptr() answers None there */
    PyObject *p = PyObject_CallOneArg(g_data_ptr, obj);
    if (p == NULL)
        return -1;
    if (!PyLong_Check(p)) {
        Py_DECREF(p);
        return 0;
    }
    void *data = PyLong_AsVoidPtr(p);
    Py_DECREF(p);
    if (data == NULL && PyErr_Occurred())
        return -1;
    TpxDLMTV *v = (TpxDLMTV *)malloc(sizeof *v + (size_t)(2 * ndim) * sizeof(int64_t));
    if (v == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t *shape = (int64_t *)(v + 1);
    for (int i = 0; i < ndim; i++) {
        shape[i] = dims[i];
        shape[ndim + i] = strides[i];
    }
    v->version.major = 1;
    v->version.minor = 0;
    v->manager_ctx = Py_NewRef(obj);
    v->deleter = owner_deleter;
    v->flags = 0;
    v->dl_tensor.data = data;
    v->dl_tensor.device.device_type = device_type;
    v->dl_tensor.device.device_id = device_id;
    v->dl_tensor.ndim = ndim;
    v->dl_tensor.dtype = g_dl_dtype[code];
    v->dl_tensor.shape = shape;
    v->dl_tensor.strides = shape + ndim;
    v->dl_tensor.byte_offset = 0;  /* data_ptr() includes the view's offset */
    *out = v;
    return 1;
}

/* set_export(data_ptr, {phi::DataType code: (DLPack code, bits, lanes)}) */
static PyObject *m_set_export(PyObject *m, PyObject *args) {
    PyObject *fn, *table;
    if (!PyArg_ParseTuple(args, "OO!:set_export", &fn, &PyDict_Type, &table))
        return NULL;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "set_export: Paddle's data_ptr (a callable)");
        return NULL;
    }
    TpxDLDataType dl[TABLE_N];
    char set[TABLE_N] = {0};
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(table, &pos, &k, &v)) {
        long code = PyLong_AsLong(k);
        int c, b, l;
        if (code == -1 && PyErr_Occurred())
            return NULL;
        if (code < 0 || code >= TABLE_N) {
            PyErr_Format(PyExc_ValueError, "dtype code %ld out of range", code);
            return NULL;
        }
        if (!PyArg_ParseTuple(v, "iii", &c, &b, &l))
            return NULL;
        dl[code].code = (uint8_t)c;
        dl[code].bits = (uint8_t)b;
        dl[code].lanes = (uint16_t)l;
        set[code] = 1;
    }
    memcpy(g_dl_dtype, dl, sizeof dl);
    memcpy(g_dl_dtype_set, set, sizeof set);
    Py_XSETREF(g_data_ptr, Py_NewRef(fn));
    return PyBool_FromLong(f_dims != NULL);
}

/* What the dispatcher and _cdlpack import: the capsule of _tensor_api.h */

static TpxTensorAPI g_api = {2, read_place, export_dl, has_elements};

static PyObject *m_api(PyObject *m, PyObject *noargs) {
    if (f_place == NULL)
        Py_RETURN_NONE;
    return PyCapsule_New(&g_api, TPX_TENSOR_API_CAPSULE, NULL);
}

/* place_of(x, tensor_type) -> (AllocationType, device index) or None, as the dispatcher reads it */
static PyObject *m_place_of(PyObject *m, PyObject *args) {
    PyObject *obj, *tensor_type;
    if (!PyArg_ParseTuple(args, "OO!:place_of", &obj, &PyType_Type, &tensor_type))
        return NULL;
    int type, device;
    if (!read_place(obj, (PyTypeObject *)tensor_type, &type, &device))
        Py_RETURN_NONE;
    return Py_BuildValue("(ii)", type, device);
}

static PyMethodDef methods[] = {
    {"bind", m_bind, METH_O, "bind(paths) -> bool: find Paddle's exported tensor API."},
    {"dtype_code", m_dtype_code, METH_VARARGS,
     "dtype_code(x, paddle.Tensor) -> phi::DataType code of a dense defined tensor, or None."},
    {"place_of", m_place_of, METH_VARARGS,
     "place_of(x, paddle.Tensor) -> (AllocationType, device index) of an allocated dense "
     "tensor, or None."},
    {"set_export", m_set_export, METH_VARARGS,
     "set_export(Paddle's data_ptr, {dtype code: (DLPack code, bits, lanes)}) -> bool: the "
     "DLPack export _cdlpack uses (False without dims()/strides() exports)."},
    {"place", m_place, METH_O,
     "place(x) -> x.place: one Place object per (place type, device) for allocated dense CPU / "
     "GPU / pinned tensors once set_place_type() ran; Paddle's x.place otherwise."},
    {"like_place", m_like_place, METH_O,
     "like_place(x) -> place(x), but None for a GPU-pinned tensor once set_place_type() ran."},
    {"set_place_type", m_set_place_type, METH_O,
     "set_place_type(paddle.Tensor or None) -> bool: place()'s cache on / off."},
    {"api", m_api, METH_NOARGS,
     "The capsule the C dispatcher reads places through (None without a place() export)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "torchproxy._cptensor",
    "x.dtype of Paddle tensors through Paddle's exported C++ tensor API "
    "(see torchproxy/_paddle_tensor.c).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__cptensor(void) {
    if (PyType_Ready(&DtypeDescrType) < 0)
        return NULL;
    if (g_place_name == NULL && (g_place_name = PyUnicode_InternFromString("place")) == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "DtypeDescr", (PyObject *)&DtypeDescrType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
