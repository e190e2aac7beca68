/* The floor under any heap walk: what recording the reference graph costs
 * before labels, previews, roots or recognisers, in two designs.
 *
 * Built and driven by walk_floor.py (docs/performance.md, "The walk's
 * floor"); not part of refscope. Each function walks the collector's
 * tracked objects (PyUnstable_GC_VisitObjects, 3.12+) with the GIL held,
 * runs no Python code and takes no reference, and returns seconds and
 * counts:
 *
 *   traverse()  tp_traverse of every tracked object, the visit reading each
 *               referent's type: what one pass of gc.collect() does.
 *   mapped()    traverse + an address -> id hash table holding every
 *               tracked object and every referent, with an address column
 *               per node and a target id column per edge: the design of
 *               refscope's walker without its prefetching. The table is the
 *               probe's (probe/src/address_map.h): 12-byte slots, sized for
 *               2.5 nodes per tracked object at 70 % load, made present and
 *               cleared by the kernel, on transparent huge pages where the
 *               kernel allows.
 *   sorted()    no table: each referent's address recorded raw (8 bytes an
 *               edge), radix-sorted, de-duplicated, and the untracked ones'
 *               headers read in address order (type, refcount, size). The
 *               ids of the edge targets are then found by binary search
 *               over the untracked addresses, then the tracked ones (sorted
 *               too), which needs no GIL: timed apart as "after".
 *
 * Untracked containers' own referents are not followed (the probe's walk
 * does), so both designs see the same nodes and edges and are compared on
 * equal terms. Each column has room for 8 edges (and nodes) per tracked
 * object, 2-3x what the benchmark heap has; a walk that fills one, or
 * cannot allocate, stops recording and says so (`truncated`) rather than
 * report short counts as real. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Set when a column was full or memory ran out: the counts are short. */
static int truncated;

/* The tracked objects, borrowed (nothing runs between here and their use). */
typedef struct {
    PyObject** items;
    size_t count, capacity;
} Tracked;

static int collect_tracked(PyObject* op, void* arg) {
    Tracked* t = (Tracked*)arg;
    if (t->count == t->capacity) {
        size_t capacity = t->capacity ? t->capacity * 2 : (size_t)1 << 16;
        PyObject** items = realloc(t->items, capacity * sizeof *items);
        if (items == NULL) {
            truncated = 1;
            return 0; /* stops the visit */
        }
        t->items = items;
        t->capacity = capacity;
    }
    t->items[t->count++] = op;
    return 1;
}

static int tracked_objects(Tracked* t) {
    memset(t, 0, sizeof *t);
    truncated = 0;
    PyUnstable_GC_VisitObjects(collect_tracked, t);
    return t->items != NULL;
}

/* Every tracked object's tp_traverse with `visit`. */
static void traverse_tracked(const Tracked* t, visitproc visit) {
    for (size_t i = 0; i < t->count; ++i) {
        traverseproc tr = Py_TYPE(t->items[i])->tp_traverse;
        if (tr != NULL) tr(t->items[i], visit, NULL);
    }
}

/* ------------------------------------------------------------ traverse */

static size_t type_bits;
static int visit_type(PyObject* op, void* arg) {
    (void)arg;
    if (op != NULL) type_bits += (size_t)(Py_TYPE(op)->tp_flags & 1);
    return 0;
}

static PyObject* traverse(PyObject* self, PyObject* unused) {
    (void)self, (void)unused;
    double start = now();
    Tracked t;
    if (!tracked_objects(&t)) return PyErr_NoMemory();
    traverse_tracked(&t, visit_type);
    double held = now() - start;
    free(t.items);
    /* type_bits is returned so that the visit's read is not optimised away. */
    return Py_BuildValue("(dnni)", held, (Py_ssize_t)t.count, (Py_ssize_t)(type_bits & 1), truncated);
}

/* -------------------------------------------------------------- mapped */

#pragma pack(push, 4)
typedef struct {
    uint64_t key;
    uint32_t id;
} Slot;
#pragma pack(pop)

typedef struct {
    Slot* slots;
    size_t mask, slot_count, table_bytes;
    unsigned shift;
    uint64_t* address; /* per node */
    uint32_t* target;  /* per edge */
    size_t nodes, edges, capacity, node_capacity;
} Map;

static Map map;

static uint32_t map_id(PyObject* op) {
    uint64_t key = (uint64_t)(uintptr_t)op;
    /* The probe's hash: 16-byte aligned objects, a Fibonacci multiplier, the top bits. */
    size_t i = (size_t)(((key >> 4) * 0x9E3779B97F4A7C15ull) >> map.shift) & map.mask;
    for (;;) {
        if (map.slots[i].key == key) return map.slots[i].id;
        if (map.slots[i].key == 0) {
            /* Full (70 % load, where the probe's map would grow) or out of
               address room: stop recording. */
            if (map.nodes * 10 >= map.slot_count * 7 || map.nodes == map.node_capacity) {
                truncated = 1;
                return UINT32_MAX;
            }
            map.slots[i].key = key;
            map.slots[i].id = (uint32_t)map.nodes;
            map.address[map.nodes] = key;
            return (uint32_t)map.nodes++;
        }
        i = (i + 1) & map.mask;
    }
}

static int visit_mapped(PyObject* op, void* arg) {
    if (op == NULL) return 0;
    visit_type(op, arg); /* what traverse does, so that mapped is traverse + the table */
    if (map.edges == map.capacity) {
        truncated = 1;
        return 0;
    }
    map.target[map.edges++] = map_id(op);
    return 0;
}

/* The probe's table (probe/src/large_table_allocator.h, ZeroedBlock): from
   4 MiB its own 2 MiB-aligned mapping, advised for huge pages and made
   present at once by the kernel, which clears it (nothing writes the zeros
   again); smaller, calloc. */
static Slot* table_alloc(size_t slots, size_t* bytes) {
    const size_t huge = (size_t)2 << 20;
    size_t size = slots * sizeof(Slot);
    *bytes = 0;
    if (size < 2 * huge) return calloc(slots, sizeof(Slot));
    size = (size + huge - 1) / huge * huge;
    char* p = mmap(NULL, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    char* aligned = (char*)(((uintptr_t)p + huge - 1) / huge * huge);
    if (aligned > p) munmap(p, (size_t)(aligned - p));
    if (p + size + huge > aligned + size) munmap(aligned + size, (size_t)(p + size + huge - (aligned + size)));
#ifdef MADV_HUGEPAGE
    madvise(aligned, size, MADV_HUGEPAGE);
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    if (madvise(aligned, slots * sizeof(Slot), MADV_POPULATE_WRITE) != 0) memset(aligned, 0, slots * sizeof(Slot));
    *bytes = size;
    return (Slot*)aligned;
}

static void table_free(Slot* slots, size_t bytes) {
    if (bytes == 0)
        free(slots);
    else if (slots != NULL)
        munmap(slots, bytes);
}

static PyObject* mapped(PyObject* self, PyObject* unused) {
    (void)self, (void)unused;
    double start = now();
    Tracked t;
    if (!tracked_objects(&t)) return PyErr_NoMemory();
    /* The probe's sizing (AddressMap::capacity_for): a power of two from
       1024 that holds 2.5 nodes per tracked object at 70 % load. */
    size_t capacity = t.count * 8, slots = 1024;
    while (slots * 7 < t.count * 5 / 2 * 10) slots <<= 1;
    memset(&map, 0, sizeof map);
    map.slot_count = slots;
    map.mask = slots - 1;
    map.shift = 64;
    for (size_t c = slots; c > 1; c >>= 1) --map.shift;
    map.slots = table_alloc(slots, &map.table_bytes);
    map.node_capacity = t.count + capacity;
    map.address = malloc(map.node_capacity * sizeof *map.address);
    map.target = malloc(capacity * sizeof *map.target);
    map.capacity = capacity;
    if (map.slots == NULL || map.address == NULL || map.target == NULL) {
        table_free(map.slots, map.table_bytes), free(map.address), free(map.target), free(t.items);
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i < t.count; ++i) map_id(t.items[i]);
    traverse_tracked(&t, visit_mapped);
    double held = now() - start;
    PyObject* result = Py_BuildValue("(dnnni)", held, (Py_ssize_t)t.count, (Py_ssize_t)map.nodes,
                                     (Py_ssize_t)map.edges, truncated);
    table_free(map.slots, map.table_bytes), free(map.address), free(map.target), free(t.items);
    return result;
}

/* -------------------------------------------------------------- sorted */

static uint64_t* raw; /* every edge's target address, in walk order */
static size_t raw_count, raw_capacity;

static int visit_raw(PyObject* op, void* arg) {
    (void)arg;
    if (op == NULL) return 0;
    if (raw_count == raw_capacity) {
        truncated = 1;
        return 0;
    }
    raw[raw_count++] = (uint64_t)(uintptr_t)op;
    return 0;
}

/* Whether `key` is in the sorted `keys[0, n)`; its position in *at. */
static int find_sorted(const uint64_t* keys, size_t n, uint64_t key, size_t* at) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    *at = lo;
    return lo < n && keys[lo] == key;
}

/* LSD radix sort of 8-aligned user-space addresses (bits 3..47), three
   passes of 15 bits; `scratch` is as long as `keys`, the result is in keys. */
static void radix_sort(uint64_t* keys, uint64_t* scratch, size_t n) {
    static size_t count[1 << 15];
    uint64_t *from = keys, *to = scratch;
    for (int shift = 3; shift < 48; shift += 15) {
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; ++i) count[(from[i] >> shift) & 0x7fff]++;
        size_t sum = 0;
        for (size_t d = 0; d < (1 << 15); ++d) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; ++i) to[count[(from[i] >> shift) & 0x7fff]++] = from[i];
        uint64_t* swap = from;
        from = to;
        to = swap;
    }
    if (from != keys) memcpy(keys, from, n * sizeof *keys);
}

static PyObject* sorted(PyObject* self, PyObject* unused) {
    (void)self, (void)unused;
    double start = now();
    Tracked t;
    if (!tracked_objects(&t)) return PyErr_NoMemory();
    raw_capacity = t.count * 8;
    raw_count = 0;
    raw = malloc(raw_capacity * sizeof *raw);
    uint64_t* keys = malloc(raw_capacity * sizeof *keys);
    uint64_t* scratch = malloc(raw_capacity * sizeof *scratch);
    /* Per untracked node: its type (the pointer's low half, a stand-in for
       a type id), refcount and size. */
    uint32_t* header = malloc(raw_capacity * 3 * sizeof *header);
    uint32_t* target = malloc(raw_capacity * sizeof *target);
    if (raw == NULL || keys == NULL || scratch == NULL || header == NULL || target == NULL) {
        free(raw), free(keys), free(scratch), free(header), free(target), free(t.items);
        return PyErr_NoMemory();
    }
    traverse_tracked(&t, visit_raw);
    memcpy(keys, raw, raw_count * sizeof *keys);
    radix_sort(keys, scratch, raw_count);
    /* The distinct untracked referents become nodes after the tracked ones. */
    size_t untracked = 0;
    for (size_t i = 0; i < raw_count; ++i) {
        if (i > 0 && keys[i] == keys[i - 1]) continue;
        PyObject* op = (PyObject*)(uintptr_t)keys[i];
        if (PyObject_IS_GC(op) && PyObject_GC_IsTracked(op)) continue;
        header[untracked * 3] = (uint32_t)(uintptr_t)Py_TYPE(op);
        header[untracked * 3 + 1] = (uint32_t)Py_REFCNT(op);
        header[untracked * 3 + 2] = (uint32_t)Py_TYPE(op)->tp_basicsize;
        keys[untracked++] = keys[i];
    }
    double held = now() - start;
    /* From here on nothing reads the heap. Each edge's target id: an
       untracked target's is its place after the tracked ones; a tracked
       one's comes from the tracked addresses, sorted here too (its place in
       that order stands for its id, which a real walk would carry along). */
    uint64_t* tracked = scratch; /* free again, and at least t.count long */
    uint64_t* tracked_scratch = malloc((t.count + 1) * sizeof *tracked_scratch);
    if (tracked_scratch == NULL) {
        free(raw), free(keys), free(scratch), free(header), free(target), free(t.items);
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i < t.count; ++i) tracked[i] = (uint64_t)(uintptr_t)t.items[i];
    radix_sort(tracked, tracked_scratch, t.count);
    size_t unresolved = 0;
    for (size_t e = 0; e < raw_count; ++e) {
        size_t at;
        if (find_sorted(keys, untracked, raw[e], &at)) target[e] = (uint32_t)(t.count + at);
        else if (find_sorted(tracked, t.count, raw[e], &at)) target[e] = (uint32_t)at;
        else target[e] = UINT32_MAX, ++unresolved; /* tracked outside the lists (gc.freeze()) */
    }
    double after = now() - start - held;
    PyObject* result = Py_BuildValue("(ddnnni)", held, after, (Py_ssize_t)t.count,
                                     (Py_ssize_t)(t.count + untracked), (Py_ssize_t)raw_count,
                                     truncated || unresolved != 0);
    free(tracked_scratch);
    free(raw), free(keys), free(scratch), free(header), free(target), free(t.items);
    return result;
}

static PyMethodDef methods[] = {
    {"traverse", traverse, METH_NOARGS, "tp_traverse of every tracked object"},
    {"mapped", mapped, METH_NOARGS, "every node and edge through an address -> id table"},
    {"sorted", sorted, METH_NOARGS, "edges recorded raw, sorted, de-duplicated"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "walk_floor", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_walk_floor(void) { return PyModule_Create(&module); }
