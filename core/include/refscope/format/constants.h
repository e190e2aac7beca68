// The numbers that the snapshot writer, the snapshot reader and the live
// wire protocol (protocol/protocol.h, which reuses the header tags) must
// agree on. Nothing else lives here: every byte layout that uses these
// constants is drawn in docs/format.md and next to the code that writes it
// (core/src/format/snapshot_writer.cpp).
//
// Kept free of any dependency beyond <cstdint> because the probe, which is
// loaded into someone else's process, compiles it too.
#pragma once

#include <cstdint>

namespace refscope::format {

// File starts with these 8 bytes: "RSCOPE" then 0x0D 0x0A, so that a transfer
// that mangles line endings is detected at once (the PNG trick).
inline constexpr unsigned char kMagic[8] = {'R', 'S', 'C', 'O', 'P', 'E', 0x0D, 0x0A};

// Major changes break readers; minor changes only add things old readers may
// skip (new section ids, new trailing header fields).
inline constexpr uint16_t kFormatMajor = 1;
// 1.1 added the Types section's flags column (kType* below); 1.2 the
// Allocations section; 1.3 the inferred edge flag (kEdgeInferred) and the
// extension-type node flag (kNodeExtensionType).
inline constexpr uint16_t kFormatMinor = 3;
// Oldest major this reader still understands.
inline constexpr uint16_t kOldestReadableMajor = 1;

// Section ids. A reader skips unknown ids whose flags do not have
// kSectionRequired set; sections appear in this order, End last.
enum class SectionId : uint16_t {
    Header = 1,
    Strings = 2,
    Types = 3,
    Nodes = 4,
    Edges = 5,
    Roots = 6,
    NativeNodes = 7,  // reserved, never written: native nodes are ordinary
                      // nodes flagged kNodeNative (docs/format.md, "Native
                      // nodes"); kept for facts the node columns cannot carry
    Threads = 8,
    Allocations = 9,  // 1.2, optional: tracemalloc's allocation tracebacks
    End = 0xFFFF,
};

// Section flag bits (u16).
inline constexpr uint16_t kSectionZstd = 0x0001;      // payload is one zstd frame
inline constexpr uint16_t kSectionRequired = 0x0002;  // unknown + required => refuse

// Hard limits the reader enforces before allocating anything, so that a
// corrupt length can never make it allocate without bound. They are far above
// any real heap (a 10M-object snapshot is ~100 MB of sections).
inline constexpr uint64_t kMaxSectionBytes = 4ull << 30;        // stored or unpacked
inline constexpr uint64_t kMaxCount = 1ull << 31;               // nodes, edges, strings...
inline constexpr uint64_t kMaxStringBytes = 1ull << 20;         // one string
inline constexpr uint32_t kMaxSections = 64;

// A compressed section unpacks to at most kMaxCompressionRatio times its
// stored bytes plus kCompressionSlack. Real snapshots unpack 1–4× (16× for
// synthetic heaps built from a few repeated patterns); a decompression bomb
// (a few KB of zstd declaring gigabytes of zeros) unpacks tens of thousands
// of times. So the memory any file of N bytes can make a reader use is
// bounded by about 256 N, whatever it declares. The writer keeps every file
// it writes inside the bound: a section that compresses better than this is
// stored uncompressed instead (docs/format.md, "Limits").
inline constexpr uint64_t kMaxCompressionRatio = 256;
inline constexpr uint64_t kCompressionSlack = 64 * 1024;

constexpr bool within_compression_bound(uint64_t stored_bytes, uint64_t raw_bytes) {
    return raw_bytes <= stored_bytes * kMaxCompressionRatio + kCompressionSlack;
}

// Node flag bits (u8), stored per node.
inline constexpr uint8_t kNodeGcTracked = 0x01;  // in the collector's lists
inline constexpr uint8_t kNodeImmortal = 0x02;   // 3.12+ immortal: refcount meaningless
inline constexpr uint8_t kNodeTypeObject = 0x04; // the object is a type
inline constexpr uint8_t kNodeStaticType = 0x08; // a type not allocated on the heap
inline constexpr uint8_t kNodeNative = 0x10;     // a C/C++ object, not a PyObject
// (1.3) a heap type made by C code (PyType_FromSpec, pybind11, nanobind),
// not by a class statement: part of its extension's static state.
inline constexpr uint8_t kNodeExtensionType = 0x20;

// Type flag bits (u8), stored per type since format 1.1 (the Types section's
// trailing column; types read from a 1.0 file have 0). What the collector can
// see of a type's instances, so that the analysis can tell an instance whose
// C/C++ members nobody reported from one the collector traverses.
inline constexpr uint8_t kTypeFactsRecorded = 0x01; // the probe recorded the bits below;
                                                     // 0 for native (C++) types and 1.0 files
inline constexpr uint8_t kTypeHasGc = 0x02;      // Py_TPFLAGS_HAVE_GC: tp_traverse visits instances
inline constexpr uint8_t kTypeDescribed = 0x04;  // a describer reports instances' C/C++ members
                                                 // (not the pybind11/nanobind recognisers alone)
inline constexpr uint8_t kTypeBound = 0x08;      // a C++ binding library made the type (a describer
                                                 // or recogniser claims it): instances wrap a C++ object

// Edge kinds (u8). The meaning of an edge's 32-bit label depends on its kind:
//   Reference  label = position among this object's unlabelled referents
//   DictValue  label = node id of the key object (render with its preview)
//   DictKey    label = unused (0)
//   Attribute  label = node id of the attribute-name str (inline values,
//              managed dicts read without materializing them)
//   Slot       label = string id of the __slots__ member name
//   Index      label = the list/tuple index itself
//   SetMember  label = unused (0)
//   Field      label = string id of the C-level field ("__globals__", "f_back"...)
//   Local      label = string id of the local variable name
//   Native     label = string id of the label a describe callback or a
//              recogniser reported (docs/cpp-extensions.md), or, with
//              kEdgeInferred, "word at +N" read from the holder's memory
//   Weak       label = unused (0): weakref -> referent, never owned
enum class EdgeKind : uint8_t {
    Reference = 0,
    DictValue = 1,
    DictKey = 2,
    Attribute = 3,
    Slot = 4,
    Index = 5,
    SetMember = 6,
    Field = 7,
    Local = 8,
    Native = 9,
    Weak = 10,
};
inline constexpr uint8_t kEdgeKindCount = 11;

// Edge flag bits (u8).
inline constexpr uint8_t kEdgeOwned = 0x01;      // a strong reference: counts in refcount arithmetic
inline constexpr uint8_t kEdgeGcVisible = 0x02;  // tp_traverse reports it
// Inferred (1.3): nothing reported this reference; the probe found the
// target's address in the memory of an object whose type has no tp_traverse
// and no describe callback. It is also Owned when the target's refcount has
// room for it (references no other edge or root accounts for), otherwise it
// is shown and not counted (docs/probe.md, "Inferred references").
inline constexpr uint8_t kEdgeInferred = 0x04;

// Root kinds (u8): who holds a reference that no object in the graph accounts
// for. "Unexplained" is not stored: the analysis derives it from refcounts.
enum class RootKind : uint8_t {
    Interpreter = 0,  // sys.modules, sys/builtins dicts, static types, singletons
    ThreadStack = 1,  // a running frame's local, argument or stack temporary,
                      // or a reference the thread state holds (its dict,
                      // context, handled exception...)
    Extension = 2,    // reported by a C/C++ library (describe API, recognisers),
                      // or a native node the owned edges into it do not
                      // account for (docs/format.md, "Native nodes")
};
inline constexpr uint8_t kRootKindCount = 3;

// Header field tags: each field is stored as varint tag, varint byte length,
// then the typed value (the length lets readers skip unknown tags); see
// docs/format.md.
enum class HeaderTag : uint32_t {
    ProbeVersion = 1,     // string
    PythonVersion = 2,    // string (sys.version)
    PythonHexVersion = 3, // varint
    PythonBuild = 4,      // string (implementation, compiler, debug/release)
    Pid = 5,              // varint
    Executable = 6,       // string
    Argv = 7,             // varint count, then strings
    TimeUnixNs = 8,       // varint
    CollectedFirst = 9,   // varint 0/1
    Sequence = 10,        // varint
    Label = 11,           // string
    WalkNs = 12,          // varint: time the GIL was held for the walk
    Platform = 13,        // string (sys.platform + machine)
};

}  // namespace refscope::format
