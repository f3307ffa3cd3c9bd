/* torchproxy._cdispatch: the Tensor-method dispatcher in C (the pure-Python twin and the
 * policy live in torchproxy/facade/dispatch.py; read that first).
 *
 * One scope check, written once (caller_scoped): the calling Python frame's globals
 * (PyEval_GetGlobals: no frame of ours is pushed, so it is the caller's), its "__name__",
 * a lookup in the decision cache of the current rules, and on a miss a call to
 * scope.STATE.wants_facade.  The current rules are pushed here, not polled: scope.py publishes
 * every new snapshot through publish(), which assigns scope.STATE.snapshot and points g_cache
 * at its decision cache (snapshot.cache) in one C call, and bumps a generation counter.  A small
 * table remembers the last decisions per globals dict, keyed by the dict's address, its
 * version tag and that generation: CPython 3.10 to 3.13 give every dict state a globally
 * unique ma_version_tag, so a (dict, tag) pair cannot be confused with another dict or with a
 * changed __name__.  On 3.14+ (no tag) the table is skipped: two dict lookups per call.
 *
 * Two descriptor types:
 *   Method - a method descriptor (Py_TPFLAGS_METHOD_DESCRIPTOR + vectorcall): `x.numel()`
 *            calls it with x as args[0], no bound method is made.
 *   Attr   - a data descriptor for properties (`x.shape`), and for torch methods whose name
 *            is a property in Paddle (`x.size` on Paddle 3.x: the getter returns a bound
 *            method of the torch implementation for callers in scope).
 * Callers in scope get the torch implementation (recorded first when a trace is active:
 * set_tracing); others get Paddle's original, called directly.  An "added" name (paddle is
 * None: Paddle lacks it) runs the torch implementation for everyone and checks the scope only
 * while tracing, to record scoped callers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

#include "_tensor_api.h"

#if PY_VERSION_HEX < 0x030A0000
#error "torchproxy._cdispatch needs CPython >= 3.10"
#endif

#ifndef TPX_SOURCE_SHA  /* setup.py passes the sha1 of this file: dispatch.py spots stale builds */
#define TPX_SOURCE_SHA ""
#endif

#if PY_VERSION_HEX < 0x030E0000
#define TPX_DICT_TAGS 1
#else
#define TPX_DICT_TAGS 0
#endif

/* -- module state (the GIL protects it) ----------------------------------------------------- */
static PyObject *g_state_dict = NULL;  /* scope.STATE.__dict__: publish() assigns its "snapshot" */
static PyObject *g_cache = NULL;    /* the current snapshot's decision cache: name -> bool */
static PyObject *g_decide = NULL;   /* callable(name) -> bool: scope.STATE.wants_facade */
static PyObject *g_record = NULL;   /* callable(full_name) while a trace is active, else NULL */
static unsigned long g_gen = 1;     /* bumped by every publish(): invalidates the table */
static PyObject *s_name = NULL;     /* interned "__name__" */
static PyObject *s_snapshot = NULL; /* interned "snapshot" */

#if TPX_DICT_TAGS
#define TABLE_SIZE 16
typedef struct {
    PyObject *globals;      /* address only, never dereferenced: no reference held */
    uint64_t tag;
    unsigned long gen;
    int result;
} table_entry;
static table_entry g_table[TABLE_SIZE];

/* ma_version_tag: deprecated since 3.12 (PEP 699) but still maintained, globally unique per
 * dict state, through 3.13; gone in 3.14 (TPX_DICT_TAGS is 0 there). */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static inline uint64_t dict_tag(PyObject *d) {
    return ((PyDictObject *)d)->ma_version_tag;
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#endif

/* scope.Snapshot's field "cache" (a NamedTuple, so a tuple): its position, defined here once;
 * exported as SNAPSHOT_CACHE_INDEX and checked against scope.CACHE_INDEX before use. */
#define SNAPSHOT_CACHE_INDEX 4

/* The rules are pushed, not polled: scope.py publishes every new snapshot (a tuple whose
 * SNAPSHOT_CACHE_INDEX item is its decision cache) through publish() below, which assigns STATE.snapshot and points g_cache at
 * the new cache in one C call (no Python code runs between the two, so no thread switch and
 * no KeyboardInterrupt can split them).  The hot path then reads one pointer and one integer,
 * on every Python version. */
static int take_snapshot(PyObject *snap) {
    if (!PyTuple_Check(snap) || PyTuple_GET_SIZE(snap) <= SNAPSHOT_CACHE_INDEX ||
            !PyDict_Check(PyTuple_GET_ITEM(snap, SNAPSHOT_CACHE_INDEX))) {
        PyErr_SetString(PyExc_TypeError, "torchproxy._cdispatch: a snapshot is a tuple with "
                        "the decision cache (a dict) at SNAPSHOT_CACHE_INDEX");
        return -1;
    }
    return 0;
}

static void use_snapshot(PyObject *snap) {
    PyObject *cache = PyTuple_GET_ITEM(snap, SNAPSHOT_CACHE_INDEX);
    if (cache != g_cache)
        Py_XSETREF(g_cache, Py_NewRef(cache));
    g_gen++;  /* the table's decisions were made under other rules */
}

static int decide_slow(PyObject *name) {
    if (g_decide == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "torchproxy._cdispatch: configure() was not called");
        return -1;
    }
    PyObject *res = PyObject_CallOneArg(g_decide, name ? name : Py_None);
    if (res == NULL)
        return -1;
    int t = PyObject_IsTrue(res);
    Py_DECREF(res);
    return t;
}

/* 1: the calling Python frame's module is in scope; 0: it is not; -1: error set. */
static int caller_scoped(void) {
    PyObject *g = PyEval_GetGlobals();  /* borrowed */
    if (g == NULL || !PyDict_Check(g))
        return decide_slow(NULL);
#if TPX_DICT_TAGS
    unsigned long gen = g_gen;  /* the rules this decision is made under */
    uint64_t tag = dict_tag(g);
    table_entry *e = &g_table[((uintptr_t)g >> 6) & (TABLE_SIZE - 1)];
    if (e->globals == g && e->tag == tag && e->gen == gen)
        return e->result;
#endif
    PyObject *name = PyDict_GetItemWithError(g, s_name);  /* borrowed */
    int result;
    if (name == NULL) {
        if (PyErr_Occurred())
            return -1;
        result = decide_slow(NULL);
    }
    else {
        PyObject *r = NULL;
        if (g_cache != NULL && PyUnicode_CheckExact(name)) {
            /* str keys hash without running Python code: the borrowed cache stays valid */
            r = PyDict_GetItemWithError(g_cache, name);
            if (r == NULL && PyErr_Occurred())
                return -1;
        }
        if (r != NULL)
            result = (r == Py_True);
        else
            result = decide_slow(name);  /* fills the cache; handles odd names itself */
    }
#if TPX_DICT_TAGS
    if (result >= 0 && dict_tag(g) == tag) {  /* only if nothing changed the dict meanwhile */
        e->globals = g;
        e->tag = tag;
        e->gen = gen;  /* stale at once if decide_slow ran under rules changed since */
        e->result = result;
    }
#endif
    return result;
}

static int record(PyObject *full) {
    PyObject *rec = g_record;
    if (rec == NULL)
        return 0;
    Py_INCREF(rec);
    PyObject *res = PyObject_CallOneArg(rec, full);
    Py_DECREF(rec);
    if (res == NULL)
        return -1;
    Py_DECREF(res);
    return 0;
}

/* C fast paths (defined after the Attr type, below) */
static PyObject fast_decline_marker;  /* address only: "run the registered implementation" */
#define FAST_DECLINE (&fast_decline_marker)
static int fast_kind_for(PyObject *name, PyObject *impl, PyObject **globals);
static int same_for(int kind, PyObject *paddle);
static PyObject *same_call(PyObject *op, PyObject *name, int kind, PyObject *paddle,
                           PyObject *globals, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames);
static PyObject *fast_call(PyObject *op, PyObject *name, int kind, PyObject *globals,
                           PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* -- Method ----------------------------------------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *name;     /* "numel" */
    PyObject *full;     /* "torch.Tensor.numel" */
    PyObject *impl;     /* the torch implementation */
    PyObject *paddle;   /* Paddle's original (from paddle.Tensor.__dict__), or NULL: added */
    PyObject *doc;
    PyObject *dict;     /* __dict__: free attributes (functools.wraps-style metadata) */
    PyObject *fast_globals;  /* impl's module globals where a C fast path serves it */
    int fast;           /* FAST_*: a C fast path for the common case, or 0 */
    int same;           /* the fast path answers Paddle's original's value too: see same_for */
} MethodObject;

static inline PyObject *method_impl(MethodObject *m, PyObject *const *args, size_t nargsf,
                                    PyObject *kwnames) {
    if (m->fast) {
        PyObject *r = fast_call((PyObject *)m, m->name, m->fast, m->fast_globals, args,
                                PyVectorcall_NARGS(nargsf), kwnames);
        if (r != FAST_DECLINE)
            return r;
    }
    return PyObject_Vectorcall(m->impl, args, nargsf, kwnames);
}

static PyObject *
method_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    MethodObject *m = (MethodObject *)op;
    if (m->same && g_record == NULL) {  /* one answer for every caller: no scope check */
        PyObject *r = same_call(op, m->name, m->fast, m->paddle, m->fast_globals, args,
                                PyVectorcall_NARGS(nargsf), kwnames);
        if (r != FAST_DECLINE)
            return r;
    }
    if (m->paddle == NULL) {
        if (g_record != NULL) {
            int s = caller_scoped();
            if (s < 0 || (s && record(m->full) < 0))
                return NULL;
        }
        return method_impl(m, args, nargsf, kwnames);
    }
    int s = caller_scoped();
    if (s < 0)
        return NULL;
    if (s) {
        if (g_record != NULL && record(m->full) < 0)
            return NULL;
        return method_impl(m, args, nargsf, kwnames);
    }
    return PyObject_Vectorcall(m->paddle, args, nargsf, kwnames);
}

static PyObject *method_descr_get(PyObject *self, PyObject *obj, PyObject *type) {
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static int method_traverse(MethodObject *m, visitproc visit, void *arg) {
    Py_VISIT(m->fast_globals);
    Py_VISIT(m->impl);
    Py_VISIT(m->paddle);
    Py_VISIT(m->doc);
    Py_VISIT(m->dict);
    return 0;
}

static int method_clear(MethodObject *m) {
    m->fast = 0;
    Py_CLEAR(m->fast_globals);
    Py_CLEAR(m->impl);
    Py_CLEAR(m->paddle);
    Py_CLEAR(m->doc);
    Py_CLEAR(m->dict);
    return 0;
}

static void method_dealloc(MethodObject *m) {
    PyObject_GC_UnTrack(m);
    method_clear(m);
    Py_CLEAR(m->name);
    Py_CLEAR(m->full);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyObject *method_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"name", "impl", "paddle", "doc", NULL};
    PyObject *name, *impl, *paddle, *doc = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "UOO|O:Method", kwlist, &name, &impl,
                                     &paddle, &doc))
        return NULL;
    if (!PyCallable_Check(impl) || (paddle != Py_None && !PyCallable_Check(paddle))) {
        PyErr_SetString(PyExc_TypeError, "Method(name, impl, paddle): impl and paddle must be "
                                         "callable (paddle may be None)");
        return NULL;
    }
    MethodObject *m = (MethodObject *)type->tp_alloc(type, 0);
    if (m == NULL)
        return NULL;
    m->vectorcall = method_vectorcall;
    m->name = Py_NewRef(name);
    m->full = PyUnicode_FromFormat("torch.Tensor.%U", name);
    m->impl = Py_NewRef(impl);
    m->paddle = paddle == Py_None ? NULL : Py_NewRef(paddle);
    m->doc = Py_NewRef(doc);
    m->fast = fast_kind_for(name, impl, &m->fast_globals);
    m->same = same_for(m->fast, m->paddle);
    if (m->full == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    return (PyObject *)m;
}

static PyObject *method_repr(MethodObject *m) {
    return PyUnicode_FromFormat("<torchproxy dispatcher Tensor.%U (%s)>", m->name,
                                m->paddle ? "dispatched" : "added");
}

static PyObject *get_paddle(PyObject *p) {
    return Py_NewRef(p ? p : Py_None);
}

static PyObject *method_get_paddle(MethodObject *m, void *c) { return get_paddle(m->paddle); }
static PyObject *fast_name(int kind);
static PyObject *method_get_fast(MethodObject *m, void *c) { return fast_name(m->fast); }
static PyObject *method_get_same(MethodObject *m, void *c) { return PyBool_FromLong(m->same); }
static PyObject *method_get_doc(MethodObject *m, void *c) { return Py_NewRef(m->doc); }
static PyObject *method_get_qualname(MethodObject *m, void *c) {
    return PyUnicode_FromFormat("Tensor.%U", m->name);
}
static PyObject *pair_or_error(PyObject *impl, PyObject *paddle) {
    /* (torch implementation, Paddle's original) for dispatched names only, as before */
    if (paddle == NULL) {
        PyErr_SetString(PyExc_AttributeError, "__torchproxy_dispatch__: an added name (Paddle "
                                              "lacks it), not dispatched");
        return NULL;
    }
    return PyTuple_Pack(2, impl, paddle);
}
static PyObject *method_get_pair(MethodObject *m, void *c) {
    return pair_or_error(m->impl, m->paddle);
}
static PyObject *method_get_wrapped(MethodObject *m, void *c) {
    /* inspect.signature() follows __wrapped__: Paddle's signature for Paddle's name */
    return Py_NewRef(m->paddle ? m->paddle : m->impl);
}

static PyMemberDef method_members[] = {
    {"__name__", T_OBJECT, offsetof(MethodObject, name), READONLY, NULL},
    {"full_name", T_OBJECT, offsetof(MethodObject, full), READONLY, NULL},
    {"impl", T_OBJECT, offsetof(MethodObject, impl), READONLY, NULL},
    {NULL}
};

static PyGetSetDef method_getset[] = {
    {"paddle", (getter)method_get_paddle, NULL, NULL, NULL},
    {"fast", (getter)method_get_fast, NULL, "the C fast path serving this name, or None", NULL},
    {"same", (getter)method_get_same, NULL, "True: the fast path serves unscoped callers too "
     "(its answer is Paddle's original's), with no scope check", NULL},
    {"__doc__", (getter)method_get_doc, NULL, NULL, NULL},
    {"__qualname__", (getter)method_get_qualname, NULL, NULL, NULL},
    {"__torchproxy_dispatch__", (getter)method_get_pair, NULL, NULL, NULL},
    {"__wrapped__", (getter)method_get_wrapped, NULL, NULL, NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL}
};

static PyTypeObject MethodType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torchproxy._cdispatch.Method",
    .tp_basicsize = sizeof(MethodObject),
    .tp_dealloc = (destructor)method_dealloc,
    .tp_vectorcall_offset = offsetof(MethodObject, vectorcall),
    .tp_repr = (reprfunc)method_repr,
    .tp_call = PyVectorcall_Call,
    .tp_getattro = PyObject_GenericGetAttr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_METHOD_DESCRIPTOR |
                Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Method(name, impl, paddle, doc=None): a Tensor method dispatched on the "
              "caller's scope",
    .tp_traverse = (traverseproc)method_traverse,
    .tp_clear = (inquiry)method_clear,
    .tp_members = method_members,
    .tp_getset = method_getset,
    .tp_descr_get = method_descr_get,
    .tp_dictoffset = offsetof(MethodObject, dict),
    .tp_new = method_new,
};

/* -- Attr ------------------------------------------------------------------------------------- */
enum { ATTR_PROPERTY = 0, ATTR_METHOD = 1 };

typedef struct {
    PyObject_HEAD
    PyObject *name;
    PyObject *full;
    PyObject *impl;     /* ATTR_PROPERTY: the torch getter (fget); ATTR_METHOD: torch's method */
    PyObject *setter;   /* the torch setter (fset) or NULL */
    PyObject *paddle;   /* Paddle's original attribute, or NULL: added */
    PyObject *doc;
    PyObject *dict;
    descrgetfunc paddle_get;  /* Py_TYPE(paddle)->tp_descr_get, or NULL */
    descrsetfunc paddle_set;  /* Py_TYPE(paddle)->tp_descr_set, or NULL */
    int kind;
    int fast;                 /* FAST_* (properties only) or 0 */
    int same;                 /* as MethodObject's */
    PyObject *fast_globals;
} AttrObject;

/* -- C fast paths of the Tensor calls kernel wrappers make (issue 26) ------------------------
 * Triton's and TileLang's host wrappers call x.dim(), x.stride(i), x.shape, x.numel(),
 * x.is_contiguous(), x.device a few times per launch; the Python implementations cost a frame
 * and a few lookups each (0.3-1.0 us against torch's 0.06-0.2).  For those names a dispatcher
 * whose registered implementation is the expected function (checked by module and qualname
 * when the dispatcher is built, so a moved or replaced implementation switches its fast path
 * off: tests/facade/test_cfast.py asserts they are on) answers the common case here, from
 * Paddle's own C getters, and hands every other case to that implementation unchanged
 * (FAST_DECLINE): errors, odd arguments, 0-size strides, non-contiguous tensors, unknown
 * places.  The registered implementation stays the one definition of the semantics. */
enum { FAST_NONE = 0, FAST_DIM, FAST_NUMEL, FAST_STRIDE, FAST_ISCONTIG, FAST_SHAPE,
       FAST_DEVICE, FAST_DATAPTR, FAST_NDIM };
static const char *const fast_names[] = {NULL, "dim", "numel", "stride", "is_contiguous",
                                         "shape", "device", "data_ptr", "ndim"};
static const struct {
    const char *name, *module, *qualname;
    int kind;
} fast_table[] = {
    {"dim", "torchproxy.facade.core", "dim", FAST_DIM},
    {"numel", "torchproxy.facade.core", "numel", FAST_NUMEL},
    {"stride", "torchproxy.facade.tensor_views", "stride", FAST_STRIDE},
    {"is_contiguous", "torchproxy.facade.tensor_views", "is_contiguous", FAST_ISCONTIG},
    {"shape", "torchproxy.facade.core", "shape", FAST_SHAPE},
    {"device", "torchproxy.facade.device", "device_", FAST_DEVICE},
    /* Paddle 2.6 only (tensor_methods registers it there): Triton's specialiser and launcher
     * read data_ptr() of every tensor argument, twice per launch (issue 26, sixth round) */
    {"data_ptr", "torchproxy.facade.tensor_methods", "data_ptr", FAST_DATAPTR},
    {"ndim", "torchproxy.facade.core", "ndim", FAST_NDIM},
};
static PyObject *s_shape, *s_strides, *s_place, *s_is_contiguous, *s_type, *s_gpu_device_id,
                *s_Size, *s_KIND_OF_TYPE, *s_CPU, *s_CUDA, *s_qualname;

static PyTypeObject MethodType;
static PyTypeObject AttrType;

static int str_is(PyObject *o, const char *s) {
    return o != NULL && PyUnicode_Check(o) && PyUnicode_CompareWithASCIIString(o, s) == 0;
}

/* The fast kind for dispatcher `name` with implementation impl (for a property: its fget), and
 * impl's module globals (a new reference) in *globals; FAST_NONE when impl is not the expected
 * function.  Never raises. */
static int fast_kind_for(PyObject *name, PyObject *impl, PyObject **globals) {
    *globals = NULL;
    for (size_t i = 0; i < sizeof(fast_table) / sizeof(fast_table[0]); i++) {
        if (!str_is(name, fast_table[i].name) || !PyFunction_Check(impl))
            continue;
        /* Two wrappers are looked through (and nothing else) at the function they call:
         * Paddle 2.6's zero_size.cutting_empty_grads `cut`, which returns ints, tuples of ints,
         * bools and devices unchanged, and _numpy_aliases' `aliased`, which only renames the
         * keywords axis=/keepdims= (a fast path takes positional arguments only) */
        PyObject *fn = Py_NewRef(impl);
        for (int depth = 0; depth < 2 && fn != NULL && PyFunction_Check(fn); depth++) {
            PyObject *mod = PyDict_GetItemWithError(PyFunction_GET_GLOBALS(fn), s_name);
            PyObject *co_name = ((PyCodeObject *)PyFunction_GET_CODE(fn))->co_name;
            if (!((str_is(mod, "torchproxy.facade.zero_size") && str_is(co_name, "cut")) ||
                  (str_is(mod, "torchproxy.facade._numpy_aliases") &&
                   str_is(co_name, "aliased"))))
                break;
            PyObject *inner = PyObject_GetAttrString(fn, "__wrapped__");
            Py_SETREF(fn, inner);
        }
        PyObject *mod;
        int ok = 0;
        if (fn != NULL && PyFunction_Check(fn)) {
            /* the module whose globals the code reads, not a copied __module__ */
            mod = PyDict_GetItemWithError(PyFunction_GET_GLOBALS(fn), s_name);
            PyObject *qual = PyObject_GetAttr(fn, s_qualname);
            ok = str_is(mod, fast_table[i].module) && str_is(qual, fast_table[i].qualname) &&
                 !PyObject_HasAttrString(fn, "__wrapped__");
            Py_XDECREF(qual);
        }
        PyErr_Clear();
        if (ok)
            *globals = Py_NewRef(PyFunction_GET_GLOBALS(fn));
        Py_XDECREF(fn);
        return ok ? fast_table[i].kind : FAST_NONE;
    }
    return FAST_NONE;
}

/* Paddle's own attribute `name` on type t (borrowed; NULL if none): under a dispatcher, the
 * original it holds. */
static PyObject *paddle_descr(PyTypeObject *t, PyObject *name) {
    PyObject *d = _PyType_Lookup(t, name);
    if (d == NULL)
        return NULL;
    if (Py_TYPE(d) == &AttrType)
        return ((AttrObject *)d)->paddle;
    if (Py_TYPE(d) == &MethodType)
        return NULL;  /* the callers below read getters only */
    return d;
}

/* self.<name> through Paddle's getter: a new reference, NULL with an error, or FAST_DECLINE */
static PyObject *paddle_getattr(PyObject *self, PyObject *name) {
    PyObject *d = paddle_descr(Py_TYPE(self), name);
    if (d == NULL || Py_TYPE(d)->tp_descr_get == NULL)
        return FAST_DECLINE;
    Py_INCREF(d);
    PyObject *r = Py_TYPE(d)->tp_descr_get(d, self, (PyObject *)Py_TYPE(self));
    Py_DECREF(d);
    return r;
}

/* A list of exact ints (Paddle's shape / strides), or FAST_DECLINE; NULL with an error. */
static PyObject *int_list(PyObject *self, PyObject *name) {
    PyObject *l = paddle_getattr(self, name);
    if (l == NULL || l == FAST_DECLINE)
        return l;
    /* a list (Paddle 3.x: its shape is paddle.Size, a list subclass) read as a list reads */
    if (!PyList_Check(l) || Py_TYPE(l)->tp_iter != PyList_Type.tp_iter ||
            Py_TYPE(l)->tp_as_sequence == NULL ||
            Py_TYPE(l)->tp_as_sequence->sq_length != PyList_Type.tp_as_sequence->sq_length) {
        Py_DECREF(l);
        return FAST_DECLINE;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++)
        if (!PyLong_CheckExact(PyList_GET_ITEM(l, i))) {
            Py_DECREF(l);
            return FAST_DECLINE;
        }
    return l;
}

static int is_zero(PyObject *o) {  /* an exact int */
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    return !overflow && v == 0;
}

static PyObject *fast_numel(PyObject *shape) {
    /* math.prod(shape) for the sizes of a real tensor; an overflow goes to Python */
    long long n = 1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(shape); i++) {
        int overflow = 0;
        long long d = PyLong_AsLongLongAndOverflow(PyList_GET_ITEM(shape, i), &overflow);
        if (overflow || (d == -1 && PyErr_Occurred()) || __builtin_mul_overflow(n, d, &n)) {
            PyErr_Clear();
            return FAST_DECLINE;
        }
    }
    return PyLong_FromLongLong(n);
}

static PyObject *fast_stride(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *s = int_list(self, s_strides);
    if (s == NULL || s == FAST_DECLINE)
        return s;
    Py_ssize_t n = PyList_GET_SIZE(s);
    PyObject *r = FAST_DECLINE;
    for (Py_ssize_t i = 0; i < n; i++)
        if (is_zero(PyList_GET_ITEM(s, i)))
            goto done;  /* maybe a 0-size tensor: the implementation's rule */
    if (nargs == 1 || args[1] == Py_None) {
        r = PyList_AsTuple(s);
    }
    else if (PyLong_CheckExact(args[1])) {
        int overflow = 0;
        long long d = PyLong_AsLongLongAndOverflow(args[1], &overflow);
        if (!overflow && !(d == -1 && PyErr_Occurred()) && -n <= d && d < n)
            r = Py_NewRef(PyList_GET_ITEM(s, d < 0 ? d + n : d));
        PyErr_Clear();
    }
done:
    Py_DECREF(s);
    return r;
}

/* Paddle's exported C++ tensor API, through torchproxy._cptensor (issue 26, eighth round): the
 * place of an allocated dense tensor read with no Python object made (_paddle_tensor.c says
 * how and when); set by set_tensor_api() after the Python side checked it, NULL otherwise. */
#define TPX_TENSOR_API_VERSION 2  /* the oldest this reads (has_elements) */
static TpxTensorAPISlot g_tapi = {NULL, NULL, NULL};

/* The device object for a place read through the API: device.py's CPU or _CUDA[index] (the
 * objects its Python path returns), by the kind _KIND_OF_TYPE learnt for that AllocationType
 * number; FAST_DECLINE for anything else (a kind not learnt yet, a device not made yet). */
static PyObject *device_from_api(PyObject *kinds, PyObject *globals, int type, int index) {
    PyObject *key = PyLong_FromLong(type);
    if (key == NULL) {
        PyErr_Clear();
        return FAST_DECLINE;
    }
    PyObject *kind = PyDict_GetItemWithError(kinds, key);  /* borrowed */
    Py_DECREF(key);
    PyObject *r = FAST_DECLINE;
    if (kind != NULL && str_is(kind, "cpu")) {
        PyObject *cpu = PyDict_GetItemWithError(globals, s_CPU);
        if (cpu != NULL)
            r = Py_NewRef(cpu);
    }
    else if (kind != NULL && str_is(kind, "cuda")) {
        PyObject *cuda = PyDict_GetItemWithError(globals, s_CUDA);
        if (cuda != NULL && PyDict_CheckExact(cuda)) {
            PyObject *idx = PyLong_FromLong(index);
            if (idx != NULL) {
                PyObject *d = PyDict_GetItemWithError(cuda, idx);
                if (d != NULL)
                    r = Py_NewRef(d);
                Py_DECREF(idx);
            }
        }
    }
    PyErr_Clear();
    return r;
}

static PyObject *fast_device(PyObject *self, PyObject *globals) {
    PyObject *kinds = PyDict_GetItemWithError(globals, s_KIND_OF_TYPE);  /* borrowed */
    if (kinds == NULL || !PyDict_CheckExact(kinds)) {
        PyErr_Clear();
        return FAST_DECLINE;
    }
    int ptype, pindex;
    if (g_tapi.api != NULL && g_tapi.api->read_place(self, g_tapi.type, &ptype, &pindex)) {
        PyObject *r = device_from_api(kinds, globals, ptype, pindex);
        if (r != FAST_DECLINE)
            return r;
    }
    PyObject *place = paddle_getattr(self, s_place);
    if (place == NULL || place == FAST_DECLINE)
        return place;
    PyObject *r = FAST_DECLINE;
    PyObject *t = PyObject_CallMethodNoArgs(place, s_type);
    if (t == NULL)
        goto fail;
    Py_INCREF(kinds);
    PyObject *kind = PyDict_GetItemWithError(kinds, t);  /* borrowed from kinds */
    Py_XINCREF(kind);
    Py_DECREF(kinds);
    Py_DECREF(t);
    if (kind == NULL) {
        if (PyErr_Occurred())
            goto fail;
    }
    else if (str_is(kind, "cpu")) {
        PyObject *cpu = PyDict_GetItemWithError(globals, s_CPU);
        if (cpu != NULL)
            r = Py_NewRef(cpu);
    }
    else if (str_is(kind, "cuda")) {
        PyObject *cuda = PyDict_GetItemWithError(globals, s_CUDA);
        if (cuda != NULL && PyDict_CheckExact(cuda)) {
            Py_INCREF(cuda);
            PyObject *idx = PyObject_CallMethodNoArgs(place, s_gpu_device_id);
            if (idx != NULL) {
                PyObject *d = PyDict_GetItemWithError(cuda, idx);
                if (d != NULL)
                    r = Py_NewRef(d);
                Py_DECREF(idx);
            }
            Py_DECREF(cuda);
        }
    }
    Py_XDECREF(kind);
    PyErr_Clear();  /* whatever failed here, the implementation does again and reports */
    Py_DECREF(place);
    return r;
fail:
    PyErr_Clear();
    Py_DECREF(place);
    return FAST_DECLINE;
}

/* The fast answer for dispatcher `op` (kind, its impl's globals) called with args, or
 * FAST_DECLINE (no error set), or NULL with an error (only Paddle's getters raising). */
static PyObject *fast_call(PyObject *op, PyObject *name, int kind, PyObject *globals,
                           PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (nargs < 1 || kwnames != NULL)
        return FAST_DECLINE;
    PyObject *self = args[0];
    /* self's class holds this very dispatcher: a Paddle Tensor (or subclass), not another
     * object passed to Tensor.dim(obj) */
    if (_PyType_Lookup(Py_TYPE(self), name) != op)
        return FAST_DECLINE;
    PyObject *l, *r;
    switch (kind) {
    case FAST_DIM:
    case FAST_NDIM:
    case FAST_NUMEL:
    case FAST_SHAPE:
        if (nargs != 1)
            return FAST_DECLINE;
        l = int_list(self, s_shape);
        if (l == NULL || l == FAST_DECLINE)
            return l;
        if (kind == FAST_DIM || kind == FAST_NDIM) {
            r = PyLong_FromSsize_t(PyList_GET_SIZE(l));
        }
        else if (kind == FAST_NUMEL) {
            r = fast_numel(l);
        }
        else {
            /* Size(shape): tuple.__new__ for a tuple subclass without __new__/__init__ */
            PyObject *size = PyDict_GetItemWithError(globals, s_Size);
            r = FAST_DECLINE;
            if (size != NULL && PyType_Check(size) &&
                    PyType_IsSubtype((PyTypeObject *)size, &PyTuple_Type) &&
                    ((PyTypeObject *)size)->tp_new == PyTuple_Type.tp_new &&
                    ((PyTypeObject *)size)->tp_init == PyBaseObject_Type.tp_init) {
                PyObject *targs = PyTuple_Pack(1, l);
                r = targs ? PyTuple_Type.tp_new((PyTypeObject *)size, targs, NULL) : NULL;
                Py_XDECREF(targs);
            }
            PyErr_Clear();
            if (r == NULL)
                r = FAST_DECLINE;
        }
        Py_DECREF(l);
        return r;
    case FAST_STRIDE:
        if (nargs > 2)
            return FAST_DECLINE;
        return fast_stride(self, args, nargs);
    case FAST_DATAPTR: {
        if (nargs != 1)
            return FAST_DECLINE;
        /* Paddle's own data_ptr() of a tensor with elements: an int is torch's answer too;
         * anything else (a 0-size tensor, None, an error) is the implementation's to answer */
        PyObject *orig = Py_TYPE(op) == &MethodType ? ((MethodObject *)op)->paddle : NULL;
        if (orig == NULL)
            return FAST_DECLINE;
        /* elements or not, read in C where the API reads this tensor (no shape list) */
        int has = g_tapi.api != NULL ? g_tapi.api->has_elements(self, g_tapi.type) : -1;
        if (has == 0)
            return FAST_DECLINE;
        if (has < 0) {
            l = int_list(self, s_shape);
            if (l == NULL || l == FAST_DECLINE)
                return l;
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++)
                if (is_zero(PyList_GET_ITEM(l, i))) {
                    Py_DECREF(l);
                    return FAST_DECLINE;
                }
            Py_DECREF(l);
        }
        Py_INCREF(orig);
        r = PyObject_Vectorcall(orig, args, 1, NULL);
        Py_DECREF(orig);
        if (r != NULL && PyLong_CheckExact(r))
            return r;
        Py_XDECREF(r);
        PyErr_Clear();
        return FAST_DECLINE;
    }
    case FAST_ISCONTIG: {
        if (nargs != 1)
            return FAST_DECLINE;
        /* Paddle's own is_contiguous (op is its dispatcher); torch's rule only adds Trues */
        PyObject *orig = Py_TYPE(op) == &MethodType ? ((MethodObject *)op)->paddle : NULL;
        if (orig == NULL)
            return FAST_DECLINE;
        Py_INCREF(orig);
        r = PyObject_Vectorcall(orig, args, 1, NULL);
        Py_DECREF(orig);
        if (r == Py_True)
            return r;
        Py_XDECREF(r);
        PyErr_Clear();  /* False (torch's rule may still say True) or an error: Python's turn */
        return FAST_DECLINE;
    }
    case FAST_DEVICE:
        if (nargs != 1)
            return FAST_DECLINE;
        return fast_device(self, globals);
    }
    return FAST_DECLINE;
}

/* -- one answer for every caller (issue 26, ninth round) --------------------------------------
 * Unscoped Paddle code paid the dispatcher on names where torch and Paddle agree: x.dim() and
 * x.ndim (Paddle's are Python, `len(var.shape)`, whose `var.shape` went through the shape
 * dispatcher again) and x.is_contiguous() where Paddle says True (torch's rule only adds Trues).
 * There the fast path's answer IS Paddle's original's, so it serves every caller with no scope
 * check (unscoped code then costs less than before enable(): no Python frame); while a trace
 * is active the ordinary path runs, so scoped calls are recorded.  same_for admits a name only
 * where Paddle's original is what the fast path is equal to:
 *   dim / ndim: a function (a property's fget) of a paddle.* module whose whole body is
 *     `len(<arg>.shape)` (one argument; names len, shape; no other code objects), so a
 *     replaced or monkeypatched original keeps the scope check;
 *   is_contiguous: Paddle's own C method (a method_descriptor): its True is returned as is,
 *     a False goes through the scope check (scoped callers get torch's rule). */
static int is_len_shape(PyObject *f) {
    if (PyObject_TypeCheck(f, &PyProperty_Type)) {
        PyObject *fget = PyObject_GetAttrString(f, "fget");
        if (fget == NULL) {
            PyErr_Clear();
            return 0;
        }
        int r = is_len_shape(fget);
        Py_DECREF(fget);
        return r;
    }
    if (!PyFunction_Check(f))
        return 0;
    PyObject *mod = PyDict_GetItemWithError(PyFunction_GET_GLOBALS(f), s_name);
    PyErr_Clear();
    const char *u = (mod != NULL && PyUnicode_Check(mod)) ? PyUnicode_AsUTF8(mod) : NULL;
    if (u == NULL || strncmp(u, "paddle.", 7) != 0) {
        PyErr_Clear();
        return 0;
    }
    PyCodeObject *co = (PyCodeObject *)PyFunction_GET_CODE(f);
    if (co->co_argcount != 1 || co->co_kwonlyargcount != 0 || !PyTuple_Check(co->co_names) ||
            PyTuple_GET_SIZE(co->co_names) != 2 ||
            !str_is(PyTuple_GET_ITEM(co->co_names, 0), "len") ||
            !str_is(PyTuple_GET_ITEM(co->co_names, 1), "shape"))
        return 0;
    /* the bytecode itself: LOAD_GLOBAL len, LOAD_FAST arg, LOAD_ATTR shape, CALL, RETURN (and
     * the version's RESUME / PRECALL / PUSH_NULL / CACHE words): no constant but None */
    PyObject *consts = co->co_consts;
    for (Py_ssize_t i = 0; consts && i < PyTuple_GET_SIZE(consts); i++) {
        PyObject *c = PyTuple_GET_ITEM(consts, i);
        if (c != Py_None && !PyUnicode_Check(c))  /* a docstring is allowed */
            return 0;
    }
    return 1;
}

static int same_for(int kind, PyObject *paddle) {
    if (paddle == NULL)
        return 0;
    switch (kind) {
    case FAST_DIM:
    case FAST_NDIM:
        return is_len_shape(paddle);
    case FAST_ISCONTIG:
        return Py_IS_TYPE(paddle, &PyMethodDescr_Type);
    }
    return 0;
}

/* The answer for every caller, or FAST_DECLINE (then the ordinary dispatch runs). */
static PyObject *same_call(PyObject *op, PyObject *name, int kind, PyObject *paddle,
                           PyObject *globals, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
    if (kind != FAST_ISCONTIG)
        return fast_call(op, name, kind, globals, args, nargs, kwnames);
    if (nargs != 1 || kwnames != NULL || _PyType_Lookup(Py_TYPE(args[0]), name) != op)
        return FAST_DECLINE;
    PyObject *r = PyObject_Vectorcall(paddle, args, 1, NULL);
    if (r == NULL || r == Py_True)
        return r;  /* Paddle's error (the implementation meets it first too), or its True */
    int s = caller_scoped();
    if (s == 0)
        return r;  /* Paddle's False, for Paddle's callers */
    Py_DECREF(r);
    if (s < 0)
        return NULL;
    return FAST_DECLINE;  /* a scoped caller: torch's rule decides (the implementation) */
}

static PyObject *fast_name(int kind) {
    return kind ? PyUnicode_FromString(fast_names[kind]) : Py_NewRef(Py_None);
}

static PyObject *attr_torch_get(AttrObject *a, PyObject *obj) {
    if (a->kind == ATTR_METHOD)
        return PyMethod_New(a->impl, obj);
    if (a->fast) {
        PyObject *r = fast_call((PyObject *)a, a->name, a->fast, a->fast_globals, &obj, 1, NULL);
        if (r != FAST_DECLINE)
            return r;
    }
    return PyObject_CallOneArg(a->impl, obj);
}

static PyObject *attr_descr_get(PyObject *self, PyObject *obj, PyObject *type) {
    AttrObject *a = (AttrObject *)self;
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    if (a->same && g_record == NULL) {  /* one answer for every caller: no scope check */
        PyObject *r = same_call(self, a->name, a->fast, a->paddle, a->fast_globals, &obj, 1, NULL);
        if (r != FAST_DECLINE)
            return r;
    }
    if (a->paddle == NULL) {
        if (g_record != NULL) {
            int s = caller_scoped();
            if (s < 0 || (s && record(a->full) < 0))
                return NULL;
        }
        return attr_torch_get(a, obj);
    }
    int s = caller_scoped();
    if (s < 0)
        return NULL;
    if (s) {
        if (g_record != NULL && record(a->full) < 0)
            return NULL;
        return attr_torch_get(a, obj);
    }
    if (a->paddle_get != NULL)
        return a->paddle_get(a->paddle, obj, type ? type : (PyObject *)Py_TYPE(obj));
    return Py_NewRef(a->paddle);
}

static int attr_descr_set(PyObject *self, PyObject *obj, PyObject *value) {
    /* as the pure-Python twin: torch's setter for scoped callers (everyone, for an added
     * name), else Paddle's, else AttributeError */
    AttrObject *a = (AttrObject *)self;
    int s = 0;
    if (value == NULL) {  /* as a property without a deleter */
        PyErr_Format(PyExc_AttributeError, "can't delete attribute '%U'", a->name);
        return -1;
    }
    if (a->setter != NULL) {
        s = a->paddle == NULL ? 1 : caller_scoped();
        if (s < 0)
            return -1;
    }
    if (s) {
        if (a->paddle != NULL && g_record != NULL && record(a->full) < 0)
            return -1;
        PyObject *res = PyObject_CallFunctionObjArgs(a->setter, obj, value, NULL);
        if (res == NULL)
            return -1;
        Py_DECREF(res);
        return 0;
    }
    if (a->paddle_set != NULL)
        return a->paddle_set(a->paddle, obj, value);
    PyErr_Format(PyExc_AttributeError, "can't set attribute '%U'", a->name);
    return -1;
}

static int attr_traverse(AttrObject *a, visitproc visit, void *arg) {
    Py_VISIT(a->fast_globals);
    Py_VISIT(a->impl);
    Py_VISIT(a->setter);
    Py_VISIT(a->paddle);
    Py_VISIT(a->doc);
    Py_VISIT(a->dict);
    return 0;
}

static int attr_clear(AttrObject *a) {
    a->fast = 0;
    Py_CLEAR(a->fast_globals);
    Py_CLEAR(a->impl);
    Py_CLEAR(a->setter);
    Py_CLEAR(a->paddle);
    Py_CLEAR(a->doc);
    Py_CLEAR(a->dict);
    a->paddle_get = NULL;
    a->paddle_set = NULL;
    return 0;
}

static void attr_dealloc(AttrObject *a) {
    PyObject_GC_UnTrack(a);
    attr_clear(a);
    Py_CLEAR(a->name);
    Py_CLEAR(a->full);
    Py_TYPE(a)->tp_free((PyObject *)a);
}

static PyObject *attr_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"name", "impl", "paddle", "setter", "method", "doc", NULL};
    PyObject *name, *impl, *paddle, *setter = Py_None, *doc = Py_None;
    int method = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "UOO|OpO:Attr", kwlist, &name, &impl, &paddle,
                                     &setter, &method, &doc))
        return NULL;
    if (!PyCallable_Check(impl) || (setter != Py_None && !PyCallable_Check(setter))) {
        PyErr_SetString(PyExc_TypeError, "Attr(name, impl, paddle, setter=None): impl and "
                                         "setter must be callable");
        return NULL;
    }
    AttrObject *a = (AttrObject *)type->tp_alloc(type, 0);
    if (a == NULL)
        return NULL;
    a->name = Py_NewRef(name);
    a->full = PyUnicode_FromFormat("torch.Tensor.%U", name);
    a->impl = Py_NewRef(impl);
    a->setter = setter == Py_None ? NULL : Py_NewRef(setter);
    a->paddle = paddle == Py_None ? NULL : Py_NewRef(paddle);
    a->doc = Py_NewRef(doc);
    a->kind = method ? ATTR_METHOD : ATTR_PROPERTY;
    if (!method) {
        a->fast = fast_kind_for(name, impl, &a->fast_globals);
        a->same = same_for(a->fast, a->paddle);
    }
    if (a->paddle != NULL) {
        a->paddle_get = Py_TYPE(a->paddle)->tp_descr_get;
        a->paddle_set = Py_TYPE(a->paddle)->tp_descr_set;
    }
    if (a->full == NULL) {
        Py_DECREF(a);
        return NULL;
    }
    return (PyObject *)a;
}

static PyObject *attr_repr(AttrObject *a) {
    return PyUnicode_FromFormat("<torchproxy dispatcher Tensor.%U (%s%s)>", a->name,
                                a->paddle ? "dispatched" : "added",
                                a->kind == ATTR_METHOD ? ", torch method" : "");
}

static PyObject *attr_get_paddle(AttrObject *a, void *c) { return get_paddle(a->paddle); }
static PyObject *attr_get_fast(AttrObject *a, void *c) { return fast_name(a->fast); }
static PyObject *attr_get_same(AttrObject *a, void *c) { return PyBool_FromLong(a->same); }
static PyObject *attr_get_setter(AttrObject *a, void *c) { return get_paddle(a->setter); }
static PyObject *attr_get_doc(AttrObject *a, void *c) { return Py_NewRef(a->doc); }
static PyObject *attr_get_is_method(AttrObject *a, void *c) {
    return PyBool_FromLong(a->kind == ATTR_METHOD);
}
static PyObject *attr_get_pair(AttrObject *a, void *c) {
    return pair_or_error(a->impl, a->paddle);
}

static PyMemberDef attr_members[] = {
    {"__name__", T_OBJECT, offsetof(AttrObject, name), READONLY, NULL},
    {"full_name", T_OBJECT, offsetof(AttrObject, full), READONLY, NULL},
    {"impl", T_OBJECT, offsetof(AttrObject, impl), READONLY, NULL},
    {NULL}
};

static PyGetSetDef attr_getset[] = {
    {"paddle", (getter)attr_get_paddle, NULL, NULL, NULL},
    {"setter", (getter)attr_get_setter, NULL, NULL, NULL},
    {"fast", (getter)attr_get_fast, NULL, "the C fast path serving this name, or None", NULL},
    {"same", (getter)attr_get_same, NULL, "True: the fast path serves unscoped callers too "
     "(its answer is Paddle's original's), with no scope check", NULL},
    {"is_method", (getter)attr_get_is_method, NULL, NULL, NULL},
    {"__doc__", (getter)attr_get_doc, NULL, NULL, NULL},
    {"__torchproxy_dispatch__", (getter)attr_get_pair, NULL, NULL, NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL}
};

static PyTypeObject AttrType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torchproxy._cdispatch.Attr",
    .tp_basicsize = sizeof(AttrObject),
    .tp_dealloc = (destructor)attr_dealloc,
    .tp_repr = (reprfunc)attr_repr,
    .tp_getattro = PyObject_GenericGetAttr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Attr(name, impl, paddle, setter=None, method=False, doc=None): a Tensor "
              "attribute dispatched on the caller's scope",
    .tp_traverse = (traverseproc)attr_traverse,
    .tp_clear = (inquiry)attr_clear,
    .tp_members = attr_members,
    .tp_getset = attr_getset,
    .tp_descr_get = attr_descr_get,
    .tp_descr_set = attr_descr_set,
    .tp_dictoffset = offsetof(AttrObject, dict),
    .tp_new = attr_new,
};

/* -- ImportFilter ---------------------------------------------------------------------------- */
/* builtins.__import__ while the hook is installed: a name that is "torch" / "torch.*" (or one of
 * the exact names in `special`: scope.COMPANIONS' compiled companions) goes to the Python hook
 * (hook._proxy_import); every other import goes straight to the original __import__, so an
 * unrelated `import json` pays one C call, not a Python frame.  Semantics are the hook's: it
 * passes those names to the original itself. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *hook;
    PyObject *original;
    PyObject *special;  /* dict: exact names for the hook */
} FilterObject;

static int starts_with_torch(PyObject *name) {
    /* name == "torch" or name.startswith("torch.") */
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(name) < 0) {
        PyErr_Clear();
        return 1;  /* let the hook (Python) sort it out */
    }
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    if (n < 5)
        return 0;
    int kind = PyUnicode_KIND(name);
    const void *data = PyUnicode_DATA(name);
    static const char t[] = "torch";
    for (Py_ssize_t i = 0; i < 5; i++)
        if (PyUnicode_READ(kind, data, i) != (Py_UCS4)t[i])
            return 0;
    return n == 5 || PyUnicode_READ(kind, data, 5) == '.';
}

static PyObject *
filter_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    FilterObject *f = (FilterObject *)op;
    PyObject *target = f->hook;  /* no positional name (by keyword): the hook sorts it out */
    if (PyVectorcall_NARGS(nargsf) >= 1) {
        PyObject *name = args[0];
        if (!PyUnicode_Check(name))
            target = f->original;  /* not a str: the original raises its own TypeError */
        else if (!starts_with_torch(name)) {
            int special = PyDict_Contains(f->special, name);
            if (special < 0)
                return NULL;
            if (!special)
                target = f->original;
        }
    }
    return PyObject_Vectorcall(target, args, nargsf, kwnames);
}

static int filter_traverse(FilterObject *f, visitproc visit, void *arg) {
    Py_VISIT(f->hook);
    Py_VISIT(f->original);
    Py_VISIT(f->special);
    return 0;
}

static int filter_clear(FilterObject *f) {
    Py_CLEAR(f->hook);
    Py_CLEAR(f->original);
    Py_CLEAR(f->special);
    return 0;
}

static void filter_dealloc(FilterObject *f) {
    PyObject_GC_UnTrack(f);
    filter_clear(f);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

static PyObject *filter_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"hook", "original", "special", NULL};
    PyObject *hook, *original, *special;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO!:ImportFilter", kwlist, &hook, &original,
                                     &PyDict_Type, &special))
        return NULL;
    if (!PyCallable_Check(hook) || !PyCallable_Check(original)) {
        PyErr_SetString(PyExc_TypeError, "ImportFilter(hook, original, special): hook and "
                                         "original must be callable");
        return NULL;
    }
    FilterObject *f = (FilterObject *)type->tp_alloc(type, 0);
    if (f == NULL)
        return NULL;
    f->vectorcall = filter_vectorcall;
    f->hook = Py_NewRef(hook);
    f->original = Py_NewRef(original);
    f->special = Py_NewRef(special);
    return (PyObject *)f;
}

static PyObject *filter_repr(FilterObject *f) {
    return PyUnicode_FromFormat("<torchproxy import filter: torch names to %R>", f->hook);
}

static PyMemberDef filter_members[] = {
    {"hook", T_OBJECT, offsetof(FilterObject, hook), READONLY, NULL},
    {"original", T_OBJECT, offsetof(FilterObject, original), READONLY, NULL},
    {"special", T_OBJECT, offsetof(FilterObject, special), READONLY, NULL},
    {NULL}
};

static PyTypeObject FilterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torchproxy._cdispatch.ImportFilter",
    .tp_basicsize = sizeof(FilterObject),
    .tp_dealloc = (destructor)filter_dealloc,
    .tp_vectorcall_offset = offsetof(FilterObject, vectorcall),
    .tp_repr = (reprfunc)filter_repr,
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "ImportFilter(hook, original, special): __import__ that sends torch names (and "
              "the names in the dict special) to hook and everything else to original",
    .tp_traverse = (traverseproc)filter_traverse,
    .tp_clear = (inquiry)filter_clear,
    .tp_members = filter_members,
    .tp_new = filter_new,
};

/* -- module functions ------------------------------------------------------------------------- */
static PyObject *mod_configure(PyObject *m, PyObject *args) {
    PyObject *decide, *state;
    if (!PyArg_ParseTuple(args, "OO:configure", &decide, &state))
        return NULL;
    if (!PyCallable_Check(decide)) {
        PyErr_SetString(PyExc_TypeError, "configure(decide, state): decide must be callable");
        return NULL;
    }
    PyObject *d = PyObject_GetAttrString(state, "__dict__");
    if (d == NULL)
        return NULL;
    if (!PyDict_CheckExact(d)) {
        Py_DECREF(d);
        PyErr_SetString(PyExc_TypeError, "configure(decide, state): state.__dict__ is not a dict");
        return NULL;
    }
    PyObject *snap = PyDict_GetItemWithError(d, s_snapshot);  /* borrowed */
    if (snap == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "configure(decide, state): state has no snapshot");
        Py_DECREF(d);
        return NULL;
    }
    if (take_snapshot(snap) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    Py_XSETREF(g_decide, Py_NewRef(decide));
    Py_XSETREF(g_state_dict, d);
    use_snapshot(snap);
    Py_RETURN_NONE;
}

static PyObject *mod_publish(PyObject *m, PyObject *snap) {
    /* STATE.snapshot = snap, and the dispatcher follows: one C call (see take_snapshot) */
    if (g_state_dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "torchproxy._cdispatch: configure() was not called");
        return NULL;
    }
    if (take_snapshot(snap) < 0)
        return NULL;
    Py_INCREF(snap);  /* the old snapshot's release below may free objects: keep ours alive */
    int rc = PyDict_SetItem(g_state_dict, s_snapshot, snap);
    if (rc == 0)
        use_snapshot(snap);
    Py_DECREF(snap);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *mod_set_tracing(PyObject *m, PyObject *rec) {
    if (rec != Py_None && !PyCallable_Check(rec)) {
        PyErr_SetString(PyExc_TypeError, "set_tracing(record): a callable or None");
        return NULL;
    }
    Py_XSETREF(g_record, rec == Py_None ? NULL : Py_NewRef(rec));
    Py_RETURN_NONE;
}

static PyObject *mod_caller_scoped(PyObject *m, PyObject *unused) {
    /* The scope decision for the Python frame that calls this function (tests, tools) */
    int s = caller_scoped();
    if (s < 0)
        return NULL;
    return PyBool_FromLong(s);
}

static PyObject *mod_not_implemented(PyObject *m, PyObject *const *args, Py_ssize_t n) {
    /* the unscoped side of Python's in-place operators (dispatch.INPLACE_OPERATORS): CPython
     * then falls back to the binary operator, as if the dispatcher were not there */
    Py_RETURN_NOTIMPLEMENTED;
}

/* -- issue 26: the hash of a pybind11 enum instance (Paddle's dtype objects) in C ----------
 * Triton's argument specialiser hashes every tensor argument's dtype per launch; Paddle's dtype
 * is a pybind11 enum whose __hash__ (and __int__) go through pybind's function dispatcher,
 * 0.2-0.4 us a call, against torch's 0.02.  A pybind11 instance is PyObject_HEAD followed by
 * its value pointer (simple layout: one C++ type, no multiple inheritance), and an enum's value
 * is the C++ enum (an int), so the hash pybind computes, hash(int(value)), is read here
 * directly.  enum_hash_install() takes the type's tp_hash only after checking, on every member
 * it is given, that this reading equals the enum's own int(); a NULL value pointer (an instance
 * not constructed) or a subclass falls back to the saved slot. */
static PyTypeObject *g_enum_type = NULL;
static hashfunc g_enum_saved_hash = NULL;

static inline int enum_value(PyObject *self, long *out) {
    void *value = *(void **)((char *)self + sizeof(PyObject));
    if (value == NULL)
        return 0;
    *out = (long)*(int *)value;
    return 1;
}

static Py_hash_t enum_fast_hash(PyObject *self) {
    long v;
    if (Py_TYPE(self) != g_enum_type || !enum_value(self, &v))
        return g_enum_saved_hash(self);
    return v == -1 ? -2 : (Py_hash_t)v;  /* hash(int) of a small int */
}

static PyObject *mod_enum_hash_install(PyObject *m, PyObject *args) {
    /* enum_hash_install(type, members) -> bool */
    PyObject *type, *members;
    if (!PyArg_ParseTuple(args, "O!O", &PyType_Type, &type, &members))
        return NULL;
    PyTypeObject *tp = (PyTypeObject *)type;
    if (g_enum_type != NULL)
        return PyBool_FromLong(g_enum_type == tp);
    if (tp->tp_hash == NULL || tp->tp_basicsize < (Py_ssize_t)(sizeof(PyObject) + sizeof(void *)))
        Py_RETURN_FALSE;
    /* only pybind11 classes have that layout: one of the bases is pybind11's object type */
    int is_pybind = 0;
    for (PyTypeObject *b = tp->tp_base; b != NULL && !is_pybind; b = b->tp_base)
        is_pybind = strcmp(b->tp_name, "pybind11_object") == 0 ||
                    strcmp(b->tp_name, "pybind11_builtins.pybind11_object") == 0;
    if (!is_pybind)
        Py_RETURN_FALSE;
    PyObject *seq = PySequence_Fast(members, "members: a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int ok = n > 0;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
        long v;
        if (Py_TYPE(o) != tp || !enum_value(o, &v)) {
            ok = 0;
            break;
        }
        PyObject *as_int = PyNumber_Long(o);
        if (as_int == NULL) {
            Py_DECREF(seq);
            return NULL;
        }
        long expect = PyLong_AsLong(as_int);
        Py_DECREF(as_int);
        if (expect == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        Py_hash_t own = PyObject_Hash(o);
        if (own == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        ok = v == expect && own == (v == -1 ? -2 : (Py_hash_t)v);
    }
    Py_DECREF(seq);
    if (!ok)
        Py_RETURN_FALSE;
    Py_INCREF(type);
    g_enum_type = tp;
    g_enum_saved_hash = tp->tp_hash;
    tp->tp_hash = enum_fast_hash;
    Py_RETURN_TRUE;
}

/* -- issue 26, sixth round: == and != between two dtypes of that enum type in C -----------
 * pybind11's enum __eq__ / __ne__ (two pybind calls, 0.5-0.9 us; torch's 0.05) compare int(a)
 * and int(b) when both operands are of the enum type (strict and convertible enums alike).
 * x.dtype is a new object on every read, so `x.dtype == torch.float16`, `a.dtype == b.dtype`
 * and `x.dtype in (torch.float16, torch.float32)` (kernel wrappers' checks) always reach it.
 * Installed on the type whose hash slot is ours (enum_hash_install checked its layout) after
 * checking, on every pair of members given, that the values decide == and != as the type's own
 * comparison does; every other operand pair and operator goes to the saved slot. */
static richcmpfunc g_enum_saved_richcompare = NULL;

static PyObject *enum_fast_richcompare(PyObject *a, PyObject *b, int op) {
    long va, vb;
    if ((op == Py_EQ || op == Py_NE) && Py_TYPE(a) == g_enum_type && Py_TYPE(b) == g_enum_type &&
            enum_value(a, &va) && enum_value(b, &vb))
        return PyBool_FromLong((va == vb) == (op == Py_EQ));
    return g_enum_saved_richcompare(a, b, op);
}

static int enum_eq_uninstall(void) {
    if (g_enum_type == NULL || g_enum_saved_richcompare == NULL)
        return 0;
    if (g_enum_type->tp_richcompare == enum_fast_richcompare)
        g_enum_type->tp_richcompare = g_enum_saved_richcompare;
    g_enum_saved_richcompare = NULL;
    return 1;
}

static PyObject *mod_enum_eq_install(PyObject *m, PyObject *args) {
    /* enum_eq_install(type, members) -> bool; the type's hash must be installed first */
    PyObject *type, *members;
    if (!PyArg_ParseTuple(args, "O!O", &PyType_Type, &type, &members))
        return NULL;
    PyTypeObject *tp = (PyTypeObject *)type;
    if (tp != g_enum_type || tp->tp_hash != enum_fast_hash || tp->tp_richcompare == NULL)
        Py_RETURN_FALSE;
    if (g_enum_saved_richcompare != NULL)
        Py_RETURN_TRUE;
    PyObject *seq = PySequence_Fast(members, "members: a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int ok = n > 1;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        PyObject *a = PySequence_Fast_GET_ITEM(seq, i);
        long va, vb;
        if (Py_TYPE(a) != tp || !enum_value(a, &va)) {
            ok = 0;
            break;
        }
        for (Py_ssize_t j = 0; ok && j < n; j++) {
            PyObject *b = PySequence_Fast_GET_ITEM(seq, j);
            if (Py_TYPE(b) != tp || !enum_value(b, &vb)) {
                ok = 0;
                break;
            }
            for (int k = 0; ok && k < 2; k++) {
                int op = k ? Py_NE : Py_EQ;
                PyObject *own = tp->tp_richcompare(a, b, op);
                if (own == NULL) {
                    Py_DECREF(seq);
                    return NULL;
                }
                ok = (own == Py_True || own == Py_False) &&
                     (own == Py_True) == ((va == vb) == (op == Py_EQ));
                Py_DECREF(own);
            }
        }
    }
    Py_DECREF(seq);
    if (!ok)
        Py_RETURN_FALSE;
    g_enum_saved_richcompare = tp->tp_richcompare;
    tp->tp_richcompare = enum_fast_richcompare;
    Py_RETURN_TRUE;
}

static PyObject *mod_enum_eq_uninstall(PyObject *m, PyObject *unused) {
    /* enum_eq_uninstall() -> bool: the saved slot back (False when none was installed) */
    return PyBool_FromLong(enum_eq_uninstall());
}

static PyObject *mod_enum_eq_installed(PyObject *m, PyObject *unused) {
    return PyBool_FromLong(g_enum_type != NULL &&
                           g_enum_type->tp_richcompare == enum_fast_richcompare);
}

static PyObject *mod_enum_hash_uninstall(PyObject *m, PyObject *unused) {
    /* enum_hash_uninstall() -> bool: the saved slot back (False when none was installed) */
    if (g_enum_type == NULL)
        Py_RETURN_FALSE;
    enum_eq_uninstall();  /* it reads the type this clears */
    if (g_enum_type->tp_hash == enum_fast_hash)
        g_enum_type->tp_hash = g_enum_saved_hash;
    Py_CLEAR(g_enum_type);
    g_enum_saved_hash = NULL;
    Py_RETURN_TRUE;
}

static PyObject *mod_enum_hash_installed(PyObject *m, PyObject *unused) {
    return PyBool_FromLong(g_enum_type != NULL && g_enum_type->tp_hash == enum_fast_hash);
}

/* -- issue 26, sixth round: torch.Size[i] for an int i in C --------------------------------
 * facade/core.py's Size.__getitem__ is a Python frame per x.shape[i] (0.25 us on the H100
 * host; kernel wrappers index shapes in their checks: a.shape[1] == b.shape[0]).  core.py
 * replaces it by a method descriptor of Size (size_item_method) that answers an exact int
 * index within range as tuple indexing does (a torch.Size's items are ints; a slice makes a
 * Size, which the Python function does) and calls that function, kept here, for every other
 * index: slices, out-of-range ints (its IndexError), anything else (its TypeError). */
static PyObject *g_size_getitem = NULL;  /* the Python Size.__getitem__ */

static PyObject *size_item(PyObject *self, PyObject *item) {
    if (PyLong_CheckExact(item) && PyTuple_Check(self)) {
        Py_ssize_t n = PyTuple_GET_SIZE(self);
        Py_ssize_t i = PyLong_AsSsize_t(item);
        if (i == -1 && PyErr_Occurred())
            PyErr_Clear();  /* beyond Py_ssize_t: out of range, the function's error */
        else {
            if (i < 0)
                i += n;
            if (i >= 0 && i < n)
                return Py_NewRef(PyTuple_GET_ITEM(self, i));
        }
    }
    if (g_size_getitem == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "torchproxy._cdispatch: no Size.__getitem__");
        return NULL;
    }
    PyObject *args[2] = {self, item};
    return PyObject_Vectorcall(g_size_getitem, args, 2, NULL);
}

static PyMethodDef size_item_def = {
    "__getitem__", (PyCFunction)size_item, METH_O,
    "torch.Size indexing: an int within range in C, everything else facade/core.py's function"};

static PyObject *mod_size_item_method(PyObject *m, PyObject *args) {
    /* size_item_method(Size, function) -> a method descriptor of Size, or function itself
     * where it is not the expected one (facade/core.py's Size.__getitem__) or Size is not a
     * tuple subclass */
    PyObject *type, *fn;
    if (!PyArg_ParseTuple(args, "O!O", &PyType_Type, &type, &fn))
        return NULL;
    int ok = PyType_IsSubtype((PyTypeObject *)type, &PyTuple_Type) && PyFunction_Check(fn);
    if (ok) {
        PyObject *mod = PyDict_GetItemWithError(PyFunction_GET_GLOBALS(fn), s_name);
        PyObject *qual = PyObject_GetAttr(fn, s_qualname);
        ok = str_is(mod, "torchproxy.facade.core") && str_is(qual, "Size.__getitem__");
        Py_XDECREF(qual);
        PyErr_Clear();
    }
    if (!ok)
        return Py_NewRef(fn);
    Py_XSETREF(g_size_getitem, Py_NewRef(fn));
    return PyDescr_NewMethod((PyTypeObject *)type, &size_item_def);
}

/* set_tensor_api(capsule, tensor_type) / set_tensor_api(None, None) (_tensor_api.h) */
static PyObject *mod_set_tensor_api(PyObject *m, PyObject *args) {
    return tpx_set_tensor_api(&g_tapi, args, TPX_TENSOR_API_VERSION, 0);
}

static PyObject *mod_tensor_api_set(PyObject *m, PyObject *noargs) {
    return PyBool_FromLong(g_tapi.api != NULL);
}

static PyMethodDef module_methods[] = {
    {"set_tensor_api", (PyCFunction)mod_set_tensor_api, METH_VARARGS,
     "set_tensor_api(torchproxy._cptensor.api(), paddle.Tensor): x.device reads places "
     "through Paddle's exported C++ API; set_tensor_api(None, None) stops it"},
    {"tensor_api_set", (PyCFunction)mod_tensor_api_set, METH_NOARGS,
     "tensor_api_set() -> bool"},
    {"not_implemented", (PyCFunction)(void (*)(void))mod_not_implemented, METH_FASTCALL,
     "not_implemented(*args) -> NotImplemented"},
    {"configure", (PyCFunction)mod_configure, METH_VARARGS,
     "configure(decide, state): decide(module_name) -> bool for cache misses; state is "
     "scope.STATE, whose snapshot.cache is the current decision cache"},
    {"publish", (PyCFunction)mod_publish, METH_O,
     "publish(snapshot): STATE.snapshot = snapshot, and the dispatcher follows the new rules "
     "(scope.py publishes every change through it)"},
    {"set_tracing", (PyCFunction)mod_set_tracing, METH_O,
     "set_tracing(record | None): record(full_name) is called for scoped callers"},
    {"caller_scoped", (PyCFunction)mod_caller_scoped, METH_NOARGS,
     "caller_scoped() -> bool: is the calling frame's module in scope"},
    {"enum_hash_install", (PyCFunction)mod_enum_hash_install, METH_VARARGS,
     "enum_hash_install(type, members) -> bool: the pybind11 enum type's hash read in C"},
    {"enum_hash_uninstall", (PyCFunction)mod_enum_hash_uninstall, METH_NOARGS,
     "enum_hash_uninstall() -> bool: the type's own hash back"},
    {"enum_hash_installed", (PyCFunction)mod_enum_hash_installed, METH_NOARGS,
     "enum_hash_installed() -> bool"},
    {"size_item_method", (PyCFunction)mod_size_item_method, METH_VARARGS,
     "size_item_method(Size, function) -> Size's __getitem__: int indexing in C, the rest "
     "function's"},
    {"enum_eq_install", (PyCFunction)mod_enum_eq_install, METH_VARARGS,
     "enum_eq_install(type, members) -> bool: == and != between members of the enum type "
     "(whose hash enum_hash_install took) read in C"},
    {"enum_eq_uninstall", (PyCFunction)mod_enum_eq_uninstall, METH_NOARGS,
     "enum_eq_uninstall() -> bool: the type's own comparison back"},
    {"enum_eq_installed", (PyCFunction)mod_enum_eq_installed, METH_NOARGS,
     "enum_eq_installed() -> bool"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "torchproxy._cdispatch",
    "The Tensor-method dispatcher in C (see torchproxy/facade/dispatch.py).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__cdispatch(void) {
    if (PyType_Ready(&MethodType) < 0 || PyType_Ready(&AttrType) < 0 ||
            PyType_Ready(&FilterType) < 0)
        return NULL;
    s_name = PyUnicode_InternFromString("__name__");
    s_snapshot = PyUnicode_InternFromString("snapshot");
    if (s_name == NULL || s_snapshot == NULL)
        return NULL;
#define INTERN(var, text) if ((var = PyUnicode_InternFromString(text)) == NULL) return NULL
    INTERN(s_shape, "shape"); INTERN(s_strides, "strides"); INTERN(s_place, "place");
    INTERN(s_is_contiguous, "is_contiguous"); INTERN(s_type, "_type");
    INTERN(s_gpu_device_id, "gpu_device_id"); INTERN(s_Size, "Size");
    INTERN(s_KIND_OF_TYPE, "_KIND_OF_TYPE"); INTERN(s_CPU, "CPU"); INTERN(s_CUDA, "_CUDA");
    INTERN(s_qualname, "__qualname__");
#undef INTERN
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&MethodType);
    Py_INCREF(&AttrType);
    Py_INCREF(&FilterType);
    if (PyModule_AddObject(m, "Method", (PyObject *)&MethodType) < 0 ||
        PyModule_AddObject(m, "Attr", (PyObject *)&AttrType) < 0 ||
        PyModule_AddObject(m, "ImportFilter", (PyObject *)&FilterType) < 0 ||
        PyModule_AddIntConstant(m, "DICT_TAGS", TPX_DICT_TAGS) < 0 ||
        PyModule_AddIntConstant(m, "API", 6) < 0 ||
        PyModule_AddIntConstant(m, "SNAPSHOT_CACHE_INDEX", SNAPSHOT_CACHE_INDEX) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE_SHA", TPX_SOURCE_SHA) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
