/* Paddle's exported C++ tensor API as torchproxy._cptensor hands it to the C dispatcher
 * (_dispatch.c) and the DLPack exchange table (_dlpack_exchange.c): one definition of the
 * capsule's struct for the three modules, and the set_tensor_api(capsule, tensor_type) /
 * set_tensor_api(None, None) both importers expose.  _paddle_tensor.c says what each reader
 * does and when it may be called. */
#ifndef TORCHPROXY_TENSOR_API_H
#define TORCHPROXY_TENSOR_API_H

#include <Python.h>

#define TPX_TENSOR_API_CAPSULE "torchproxy._cptensor.API"

struct TpxDLMTV;  /* DLPack's DLManagedTensorVersioned (each module spells out the layout) */

/* fields are only ever appended; `version` counts them */
typedef struct {
    int version;
    int (*read_place)(PyObject *obj, PyTypeObject *tensor_type, int *type, int *device);
    int (*export_dl)(PyObject *obj, PyTypeObject *tensor_type, struct TpxDLMTV **out);
    int (*has_elements)(PyObject *obj, PyTypeObject *tensor_type);  /* version >= 2 */
} TpxTensorAPI;

/* An importer's hold on the API: NULL api until set_tensor_api() installed one; the capsule
 * (and so its module) and the tensor type are kept alive while it is. */
typedef struct {
    const TpxTensorAPI *api;
    PyObject *capsule;
    PyTypeObject *type;
} TpxTensorAPISlot;

/* set_tensor_api(capsule, tensor_type): installs the capsule's API if its version is at least
 * min_version and (need_export) it has export_dl; set_tensor_api(None, None) forgets it.
 * Returns True / False as installed, NULL with an error. */
static inline PyObject *tpx_set_tensor_api(TpxTensorAPISlot *slot, PyObject *args,
                                           int min_version, int need_export) {
    PyObject *cap, *tp;
    if (!PyArg_ParseTuple(args, "OO:set_tensor_api", &cap, &tp))
        return NULL;
    if (cap == Py_None) {
        slot->api = NULL;
        Py_CLEAR(slot->capsule);
        Py_CLEAR(slot->type);
        Py_RETURN_FALSE;
    }
    if (!PyType_Check(tp)) {
        PyErr_SetString(PyExc_TypeError, "set_tensor_api: the Paddle tensor type");
        return NULL;
    }
    const TpxTensorAPI *api = PyCapsule_GetPointer(cap, TPX_TENSOR_API_CAPSULE);
    if (api == NULL)
        return NULL;
    if (api->version < min_version) {
        PyErr_Format(PyExc_RuntimeError, "set_tensor_api: API version %d, this build reads %d+",
                     api->version, min_version);
        return NULL;
    }
    if (need_export && api->export_dl == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "set_tensor_api: an API without export_dl");
        return NULL;
    }
    Py_XSETREF(slot->capsule, Py_NewRef(cap));
    Py_XSETREF(slot->type, (PyTypeObject *)Py_NewRef(tp));
    slot->api = api;
    Py_RETURN_TRUE;
}

#endif
