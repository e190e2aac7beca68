#include "text_output.h"

#include <cstdio>

#include "text_table.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/display_text.h"

namespace refscope::cli {
namespace {

using analysis::format_address;
using analysis::format_utc;
using analysis::human_bytes;
using analysis::quote_text;
using analysis::with_thousands;
using analysis::with_thousands_signed;

constexpr std::string_view kArrow = " \u2192 ";

std::string plural(uint64_t count, std::string_view one, std::string_view many) {
    return with_thousands(count) + " " + std::string(count == 1 ? one : many);
}

std::string surplus_text(const NodeReport& node) {
    return node.surplus ? with_thousands_signed(*node.surplus) : std::string(node.immortal ? "immortal" : "-");
}

std::string root_text(const RootReport& root) {
    std::string text = root.kind;
    if (!root.thread.empty()) text += " (thread " + root.thread + ")";
    text += ": " + root.label;
    if (root.count == 0) {
        text += " (all surplus)";
    } else if (root.count != 1) {
        text += " (\u00d7" + std::to_string(root.count) + ")";
    }
    return text;
}

void print_nodes(std::ostream& out, const std::vector<NodeReport>& nodes, bool with_unexplained) {
    Table table({true, true, true, false, false});
    table.row({with_unexplained ? "unexplained" : "surplus", "refcount", "size", "address", "object"});
    for (const NodeReport& n : nodes) {
        table.row({with_unexplained ? with_thousands_signed(n.unexplained) : surplus_text(n),
                   with_thousands_signed(n.refcount), with_thousands(n.size),
                   format_address(n.address), n.description});
    }
    table.print(out);
}

void print_hops(std::ostream& out, const NodeReport* first, std::string_view first_edge,
                const std::vector<HopReport>& hops) {
    Table table({true, false, false, false, false, true, true, true});
    table.row({"hop", "edge", "kind", "object", "address", "size", "refcount", "surplus"});
    if (first) {
        table.row({"0", std::string(first_edge), "", first->description,
                   format_address(first->address), with_thousands(first->size),
                   with_thousands_signed(first->refcount), surplus_text(*first)});
    }
    for (size_t i = 0; i < hops.size(); ++i) {
        const HopReport& hop = hops[i];
        table.row({std::to_string(i + 1), hop.edge, hop.edge_kind, hop.node.description,
                   format_address(hop.node.address),
                   with_thousands(hop.node.size),
                   with_thousands_signed(hop.node.refcount), surplus_text(hop.node)});
    }
    table.print(out);
}

std::string chain(std::string start, const std::vector<HopReport>& hops) {
    for (const HopReport& hop : hops) {
        start += std::string(kArrow) + hop.edge + std::string(kArrow) + hop.node.description;
    }
    return start;
}

}  // namespace

void write_text(const InfoReport& r, std::ostream& out) {
    const Snapshot& s = *r.snapshot;
    const SnapshotHeader& h = s.header;
    Table table({false, false});
    table.row({"file", r.file});
    table.row({"format", std::to_string(h.format_major) + "." + std::to_string(h.format_minor)});
    if (!h.probe_version.empty()) table.row({"probe", h.probe_version});
    std::string python = h.python_version;
    std::replace(python.begin(), python.end(), '\n', ' ');
    if (!python.empty()) table.row({"python", python});
    if (!h.python_build.empty()) table.row({"build", h.python_build});
    if (!h.platform.empty()) table.row({"platform", h.platform});
    std::string process = "pid " + std::to_string(h.pid);
    if (!h.executable.empty()) process += ": " + h.executable;
    for (const std::string& arg : h.argv) process += " " + arg;
    table.row({"process", process});
    std::string taken = format_utc(h.time_unix_ns);
    if (taken.empty()) taken = "unknown";
    taken += ", snapshot #" + std::to_string(h.sequence);
    if (!h.label.empty()) taken += ", label " + quote_text(h.label);
    table.row({"taken", taken});
    table.row({"gc first", h.collected_first ? "yes (gc.collect() ran before the walk)" : "no"});
    if (h.walk_ns) {
        table.row({"walk", with_thousands(h.walk_ns / 1000) + " \u00b5s with the GIL held"});
    }
    table.row({"objects", with_thousands(s.node_count()) + " (" +
                              with_thousands(r.gc_tracked) + " GC-tracked, " +
                              with_thousands(r.immortal) + " immortal, " +
                              with_thousands(r.native) + " native, " +
                              with_thousands(r.type_objects) + " types)"});
    table.row({"bytes", with_thousands(r.bytes) + " shallow (" + human_bytes(r.bytes) + ")"});
    table.row({"references", with_thousands(r.references)});
    table.row({"types", with_thousands(s.types.size())});
    table.row({"roots", plural(s.roots.size(), "record", "records")});
    std::string threads = std::to_string(s.threads.size());
    for (size_t t = 0; t < s.threads.size(); ++t) {
        threads += (t == 0 ? ": " : ", ") + std::string(s.strings.view(s.threads[t].name));
        if (s.threads[t].is_main) threads += " (main)";
    }
    table.row({"threads", threads});
    const AllocationSites& a = s.allocations;
    if (a.recorded()) {
        table.row({"allocation sites", plural(a.traced_count(), "object", "objects") + " traced, " +
                                           plural(a.traceback_count(), "traceback", "tracebacks") + " of up to " +
                                           plural(a.traceback_limit, "frame", "frames")});
    }
    table.print(out, "");
}

void write_text(const SummaryReport& r, std::ostream& out) {
    const std::string by(analysis::group_by_name(r.by));
    out << "by " << by << ": " << plural(r.objects, "object", "objects") << ", "
        << with_thousands(r.bytes) << " bytes shallow (" << human_bytes(r.bytes)
        << ")";
    if (r.filter) out << " matching " << analysis::escape_text(*r.filter, 1000);
    if (r.groups.size() < r.group_count) {
        out << ", largest " << r.groups.size() << " of " << r.group_count << " groups";
    }
    out << '\n';
    Table table({true, true, true, false});
    table.row({"objects", "bytes", "share", by});
    for (const analysis::GroupTotal& g : r.groups) {
        char share[16];
        std::snprintf(share, sizeof share, "%.1f%%",
                      r.bytes ? 100.0 * static_cast<double>(g.bytes) / static_cast<double>(r.bytes) : 0.0);
        table.row({with_thousands(g.objects),
                   with_thousands(g.bytes), share, g.name});
    }
    table.print(out);
}

void write_text(const RootsReport& r, std::ostream& out) {
    out << "root classes (how refcount surplus is explained):\n";
    Table table({false, true, true, true});
    table.row({"class", "references", "objects", "records"});
    for (const RootClassRow& c : r.classes) {
        table.row({c.kind, with_thousands(c.references),
                   with_thousands(c.objects),
                   c.kind == "unexplained" ? "-" : with_thousands(c.records)});
    }
    table.print(out);
    out << "reachable from explained roots: " << with_thousands(r.reachable)
        << " of " << plural(r.objects, "object", "objects") << '\n';

    out << '\n';
    if (r.unexplained_objects == 0) {
        out << "no object has unexplained surplus: every reference is accounted for\n";
    } else {
        out << "objects with unexplained surplus (references the GC cannot see: a C/C++ holder "
               "or a leak): " << with_thousands(r.unexplained_objects);
        if (r.unexplained.size() < r.unexplained_objects) out << ", top " << r.unexplained.size();
        out << '\n';
        print_nodes(out, r.unexplained, true);
    }
    if (r.negative_objects > 0) {
        out << "\nobjects with negative surplus (refcount below the owned references to them: "
               "the snapshot is inconsistent there): " << with_thousands(r.negative_objects)
            << '\n';
        print_nodes(out, r.negative, false);
    }
    if (r.overexplained_references > 0) {
        out << "\nroot records claim " << plural(r.overexplained_references, "reference", "references")
            << " more than the surplus they explain\n";
    }
    if (r.invalid_root_records > 0) {
        out << "\nignored " << plural(r.invalid_root_records, "root record", "root records")
            << " naming no object\n";
    }
}

// "allocated at app.py:13 in create_order" and the traceback, most recent
// call first, when the snapshot has allocation tracebacks.
void print_allocation(std::ostream& out, const NodeReport& node) {
    if (!node.has_allocations) return;
    if (node.allocated.empty()) {
        out << "allocated: not traced (allocated before tracemalloc started, or static)\n";
        return;
    }
    out << "allocated at " << node.allocation_site << '\n';
    if (node.allocated.size() == 1 && node.allocated.front() == node.allocation_site) return;
    out << "  traceback, most recent call first:\n";
    for (const std::string& frame : node.allocated) out << "    " << frame << '\n';
}

void write_text(const PathReport& r, std::ostream& out) {
    if (!r.type_name.empty()) {
        out << plural(r.instances, "instance", "instances") << " of " << r.type_name << ", "
            << with_thousands(r.reachable_instances) << " reachable from roots; ";
        out << (r.found ? "the nearest:" : "this one:") << '\n';
    }
    if (!r.found) {
        out << r.target.description;
        if (r.target.description.find(" @ ") == std::string::npos) {
            out << " @ " << format_address(r.target.address);
        }
        out << ": " << r.explanation << '\n';
        print_allocation(out, r.target);
        if (r.holder) {
            out << '\n' << "held through: " << chain(r.holder->description, r.holder_hops) << "\n\n";
            print_hops(out, &*r.holder, "(holder)", r.holder_hops);
        }
        if (r.likely_holder) {
            // The closing reference is the inference: no edge in the snapshot.
            const std::string& start = r.holder ? r.holder->description : r.target.description;
            out << '\n' << "probable cycle (inferred): " << chain(start, r.likely_holder_hops) << kArrow
                << "(C++ member, not in the snapshot)" << kArrow << start << '\n';
        }
        return;
    }
    out << chain(r.root->label + std::string(kArrow) + r.root_node.description, r.hops) << "\n\n";
    out << "root: " << root_text(*r.root) << '\n';
    out << plural(r.hops.size(), "hop", "hops") << " from the root:\n";
    print_hops(out, &r.root_node, "(root)", r.hops);
    if (r.finalizer) {
        out << '\n' << r.finalizer->note << '\n';
    }
    if (r.target.has_allocations) out << '\n';
    print_allocation(out, r.target);
}

void write_text(const ReferrersReport& r, std::ostream& out) {
    const NodeReport& t = r.target;
    out << t.description;
    if (t.description.find(" @ ") == std::string::npos) out << " @ " << format_address(t.address);
    out << "  (" << t.type << ", " << with_thousands(t.size) << " bytes)\n";

    const analysis::SurplusBreakdown& b = r.breakdown;
    if (!b.counted) {
        out << "refcount " << with_thousands_signed(b.refcount) << " not counted ("
            << (t.native ? "native object" : "immortal") << "); "
            << plural(r.owned_in, "owned reference", "owned references") << " from objects\n";
    } else {
        out << "refcount " << with_thousands_signed(b.refcount) << " = "
            << plural(r.owned_in, "owned reference", "owned references") << " from objects + "
            << with_thousands_signed(b.surplus) << " surplus";
        if (b.surplus > 0) {
            out << " (interpreter " << b.explained[0] << ", thread stack " << b.explained[1]
                << ", extension " << b.explained[2] << ", unexplained " << b.unexplained << ")";
        } else if (b.surplus < 0) {
            out << " (negative: the snapshot is inconsistent here)";
        }
        out << '\n';
        if (b.unexplained > 0) {
            out << plural(static_cast<uint64_t>(b.unexplained), "reference", "references")
                << " that the GC cannot see (unexplained surplus) \u2014 a C/C++ holder or a leak\n";
        }
    }
    if (r.distance) {
        out << "distance from the nearest root: " << plural(*r.distance, "hop", "hops") << '\n';
    } else {
        out << "no path from GC roots\n";
    }
    print_allocation(out, t);

    out << "\nreferrers: " << with_thousands(r.referrer_count);
    if (r.referrers.size() < r.referrer_count) out << ", first " << r.referrers.size();
    out << '\n';
    if (!r.referrers.empty()) {
        Table table({false, false, false, false, false});
        table.row({"edge", "kind", "flags", "address", "referrer"});
        for (const HopReport& hop : r.referrers) {
            std::string flags = hop.owned ? "owned" : "borrowed";
            if (hop.gc_invisible) flags += ", GC-invisible";
            if (hop.inferred) flags += ", inferred";
            table.row({hop.edge, hop.edge_kind, flags, format_address(hop.node.address),
                       hop.node.description});
        }
        table.print(out);
    }
    out << "\nroot records: " << r.roots.size() << '\n';
    for (const RootReport& root : r.roots) out << "  " << root_text(root) << '\n';
}

}  // namespace refscope::cli
