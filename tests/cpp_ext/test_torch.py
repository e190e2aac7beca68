"""The probe's PyTorch recogniser (probe/src/recognise_torch.cpp).
Runs where torch imports (the Debian 13 and testing roots' python3-torch).
REFSCOPE_TORCH_RELEASES lists the releases the probe was built to read
("2.6,2.14"); on any other release the recogniser must report nothing."""
import os
import shutil
import subprocess
import tempfile
import unittest

from cpp_ext_support import (EDGE_OWNED, NODE_NATIVE, ROOT_EXTENSION, cli, cli_json, explained, in_edges,
                             run_program, walk)

try:
    import torch
except ImportError:
    torch = None

RELEASES = [r for r in os.environ.get("REFSCOPE_TORCH_RELEASES", "").split(",") if r]


def release():
    return ".".join(torch.__version__.split(".")[:2])


def recognised():
    return torch is not None and release() in RELEASES


def native_in(facts, label):
    return [e for e in in_edges(facts, "Native") if e[2] == label]


def cpp_roots(facts):
    return [r for r in facts["roots"] if r[0] == ROOT_EXTENSION and r[1].startswith("held by C/C++ code")]


# The root torch's registration map gets (recognise_torch_dispatcher.cpp).
REGISTRATION = ("torch python_registrations_[%s][%s] (a static map of libtorch_python, inferred from the "
                "dispatcher's kernels)")

# The releases Debian packages (13: 2.6, testing: 2.14), which the build
# fetches headers for: where one of them imports, it must be recognised.
PACKAGED = ("2.6", "2.14")


@unittest.skipIf(torch is None, "torch does not import here")
class Unrecognised(unittest.TestCase):
    def test_a_packaged_release_is_recognised(self):
        if release() in PACKAGED:
            self.assertIn(release(), RELEASES, "the build did not measure this release's layout")

    @unittest.skipIf(recognised(), "this torch release is recognised")
    def test_an_unknown_release_reports_nothing(self):
        global TENSOR
        TENSOR = torch.ones(10)
        try:
            _report, (tensor, impl) = walk(id(TENSOR), TENSOR._cdata)
            self.assertIsNone(impl)
            self.assertEqual(in_edges(tensor, "Native"), [])
        finally:
            del TENSOR


@unittest.skipUnless(recognised(), "torch does not import here, or its release is not recognised")
class Tensors(unittest.TestCase):
    def test_storage_bytes_are_a_native_node(self):
        global TENSOR
        TENSOR = torch.zeros(1000, 1000)
        try:
            storage = TENSOR.untyped_storage()
            ids = (id(TENSOR), TENSOR._cdata, storage._cdata, storage.data_ptr())
            del storage
            _report, (tensor, impl, storage, data) = walk(*ids)
            self.assertEqual(impl["type"], "c10::TensorImpl")
            self.assertTrue(impl["flags"] & NODE_NATIVE)
            self.assertEqual(impl["preview"], "float32 (1000, 1000) cpu")
            self.assertIn(("Native", EDGE_OWNED, "cdata"), in_edges(impl))
            self.assertEqual(storage["type"], "c10::StorageImpl")
            self.assertEqual(storage["preview"], "cpu, 4000000 bytes")
            self.assertIn(("Native", EDGE_OWNED, "storage_"), in_edges(storage))
            self.assertEqual(data["type"], "tensor data (cpu)")
            self.assertEqual(data["size"], 4_000_000)
            self.assertEqual(in_edges(data), [("Native", EDGE_OWNED, "data_ptr_")])
            self.assertEqual(tensor["refcount"], explained(tensor), tensor)
        finally:
            del TENSOR

    def test_previews_and_unusual_tensors(self):
        global TENSORS
        TENSORS = {
            "bfloat16 (4,) cpu": torch.zeros(4, dtype=torch.bfloat16),
            "bool (2,) cpu": torch.zeros(2, dtype=torch.bool),
            "int64 () cpu": torch.tensor(5),
            # more than five dimensions: sizes on the heap
            "float64 (2, 1, 2, 1, 2, 1, 2) cpu": torch.zeros(2, 1, 2, 1, 2, 1, 2, dtype=torch.float64),
            "float32 (10,) meta": torch.empty(10, device="meta"),
            # custom sizes policy: no sizes shown
            "float32 cpu": torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2)),
        }
        try:
            ids = [t._cdata for t in TENSORS.values()]
            _report, facts = walk(*ids)
            for (preview, tensor), impl in zip(TENSORS.items(), facts):
                self.assertEqual(impl["preview"], preview, tensor)
            self.assertEqual(facts[-1]["type"], "at::SparseTensorImpl")
            storage = TENSORS["float32 (10,) meta"].untyped_storage()._cdata
            _report, (storage,) = walk(storage)
            self.assertEqual(storage["preview"], "meta, 40 bytes, not allocated")
        finally:
            del TENSORS

    def test_memory_from_numpy_is_counted_at_the_array(self):
        import numpy as np
        global ARRAY, TENSOR
        ARRAY = np.ones(100_000)
        TENSOR = torch.from_numpy(ARRAY)
        try:
            storage = TENSOR.untyped_storage()._cdata
            _report, (storage, array) = walk(storage, id(ARRAY))
            # the bytes are the array's ("ndarray data"): torch's node for
            # them is "borrowed", of size 0 (TensorsCli checks the totals)
            self.assertEqual(storage["preview"], "cpu, 800000 bytes, borrowed (allocated outside PyTorch)")
            # the reference from_numpy's deleter holds is the storage's
            self.assertEqual(native_in(array, "data_ptr_ deleter (from_numpy)"),
                             [("Native", EDGE_OWNED, "data_ptr_ deleter (from_numpy)")])
            self.assertEqual(array["refcount"], explained(array), array)
        finally:
            del ARRAY, TENSOR

    def test_views_share_one_storage_and_hold_their_base(self):
        global LEFT, RIGHT
        base = torch.arange(1000.0)
        LEFT, RIGHT = base[:500], base[500:].view(5, 100)
        ids = (base._cdata, base.untyped_storage()._cdata, LEFT._cdata, RIGHT._cdata)
        del base
        try:
            _report, (base, storage, left, right) = walk(*ids)
            # one StorageImpl, held by three TensorImpls and nothing else
            self.assertEqual(len(native_in(storage, "storage_")), 3)
            self.assertEqual(storage["refcount"], storage["owned_in"], storage)
            self.assertEqual(cpp_roots(storage), [])
            # the views' autograd metadata holds the base: its count is explained
            self.assertEqual(len(native_in(base, "autograd_meta_->backward_info_->base_")), 2, base)
            self.assertEqual(cpp_roots(base), [], base)
            self.assertEqual(right["preview"], "float32 (5, 100) cpu")
        finally:
            del LEFT, RIGHT

    def test_a_gradient_held_only_from_cpp_is_held_by_its_tensorimpl(self):
        """PyObject preservation: the Python object of a .grad whose Python
        references are all gone lives on, owned by its C++ TensorImpl."""
        global PARAM
        PARAM = torch.nn.Parameter(torch.zeros(10))
        grad = torch.full((10,), 7.0)
        grad.note = "kept with the object"
        PARAM.grad = grad
        ids = (id(grad), grad._cdata, id(grad.__dict__))
        del grad
        try:
            _report, (grad, impl, attributes) = walk(*ids)
            self.assertEqual(native_in(grad, "pyobj_slot_ (preserved)"), [("Native", EDGE_OWNED,
                                                                           "pyobj_slot_ (preserved)")])
            self.assertEqual(grad["refcount"], explained(grad), grad)
            self.assertEqual(grad["roots"], [])
            self.assertIn(("Native", EDGE_OWNED, "autograd_meta_->grad_"), in_edges(impl))
            self.assertEqual(cpp_roots(impl), [], impl)
            self.assertIsNotNone(attributes, "the preserved tensor's __dict__ is in the snapshot")
        finally:
            del PARAM

    def test_a_tensor_the_autograd_graph_saved_is_held_from_cpp(self):
        global SAVED, LOSS
        SAVED = torch.ones(5, requires_grad=True)
        LOSS = (SAVED * SAVED).sum()
        try:
            _report, (tensor, impl) = walk(id(SAVED), SAVED._cdata)
            self.assertEqual(tensor["refcount"], explained(tensor), tensor)
            roots = cpp_roots(impl)
            self.assertEqual(len(roots), 1, impl)
            # the Python object's reference is the one the graph shows; two
            # saved copies and the gradient accumulator are C++'s
            self.assertGreaterEqual(impl["refcount"], 3)
            held = impl["refcount"] - impl["owned_in"]
            self.assertEqual(roots[0][1], "held by C/C++ code: %d of %d references (described by torch)"
                             % (held, impl["refcount"]))
        finally:
            del SAVED, LOSS


@unittest.skipUnless(recognised(), "torch does not import here, or its release is not recognised")
class Dispatcher(unittest.TestCase):
    """Python kernels registered with torch.library are held by C++."""

    def test_a_kernel_registered_for_two_keys_is_fully_explained(self):
        library = torch.library.Library("refscope_walk", "DEF")
        try:
            library.define("twice(Tensor x) -> Tensor")

            def twice_kernel(x):
                return x * 2
            library.impl("twice", twice_kernel, "CPU")
            library.impl("twice", twice_kernel, "Meta")
            ident = id(twice_kernel)
            del twice_kernel
            _report, (kernel,) = walk(ident)
            self.assertEqual(native_in(kernel, "func_"), [("Native", EDGE_OWNED, "func_")] * 2)
            labels = sorted(r[1] for r in kernel["roots"] if r[0] == ROOT_EXTENSION)
            self.assertEqual(labels, [REGISTRATION % ("refscope_walk::twice", "CPU"),
                                      REGISTRATION % ("refscope_walk::twice", "Meta")])
            self.assertEqual(kernel["refcount"], explained(kernel), kernel)
        finally:
            library._destroy()

    def test_a_kernel_left_behind_by_a_destroyed_library_stays_unexplained(self):
        """PyTorch keeps a function in python_registrations_ after its Library
        is destroyed and the kernel deregistered: a leak in PyTorch itself,
        which the snapshot must not explain away."""
        library = torch.library.Library("refscope_gone", "DEF")
        library.define("gone(Tensor x) -> Tensor")

        def gone_kernel(x):
            return x
        library.impl("gone", gone_kernel, "CPU")
        ident = id(gone_kernel)
        del gone_kernel
        library._destroy()
        _report, (kernel,) = walk(ident)
        self.assertIsNotNone(kernel, "the function is still alive")
        self.assertEqual(native_in(kernel, "func_"), [])
        self.assertEqual([r for r in kernel["roots"] if r[0] == ROOT_EXTENSION], [])
        self.assertEqual(kernel["refcount"] - explained(kernel), 1, kernel)


@unittest.skipUnless(recognised() and cli(), "torch release not recognised here, or REFSCOPE_CLI not set")
class TensorsCli(unittest.TestCase):
    """programs/torch_tensors.py, checked through refscope-cli."""

    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="refscope-torch-")
        cls.info = run_program("torch_tensors.py", cls.workdir)
        cls.summary = cli_json("summary", cls.info["snapshot"], "--by", "type", "--top", "100000")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.workdir, True)

    def group(self, name):
        found = [g for g in self.summary["groups"] if g["name"] == name]
        self.assertEqual(len(found), 1, [g["name"] for g in self.summary["groups"]][:40])
        return found[0]

    def test_the_array_and_the_tensor_show_at_their_real_size(self):
        self.assertGreaterEqual(self.group("ndarray data")["bytes"], 80_000_000)
        self.assertLess(self.group("ndarray data")["bytes"], 81_000_000)
        # torch.from_numpy(array) shares the array's 80 MB: counted once
        borrowed = self.group("tensor data (cpu, borrowed)")
        self.assertEqual((borrowed["objects"], borrowed["bytes"]), (1, 0))
        data = self.group("tensor data (cpu)")
        # 40 MB + 4 MB shared by two views (once) + small ones: not 4 MB per view
        self.assertGreaterEqual(data["bytes"], 44_000_000)
        self.assertLess(data["bytes"], 46_000_000)
        self.assertGreaterEqual(self.summary["bytes"], 124_000_000)
        rows = {row["node"]["address"]: row
                for row in cli_json("retained", self.info["snapshot"], "--top", "0")["top"]}
        self.assertGreaterEqual(rows[self.info["tensor"]]["retained_bytes"], 40_000_000)

    def test_a_python_kernel_and_what_it_captured_are_held_by_the_dispatcher(self):
        """torch.library: the kernel's one reference from C++'s kernel holder is
        read; the one from torch's python_registrations_ map is inferred."""
        snapshot = self.info["snapshot"]
        path = cli_json("path", snapshot, "--to", self.info["settings"])
        self.assertTrue(path["found"], path.get("explanation"))
        self.assertEqual(path["root"]["label"], REGISTRATION % ("refscope_test::scale", "CPU"))
        self.assertEqual(path["root"]["node"]["address"], self.info["kernel"])
        kernel = cli_json("referrers", snapshot, self.info["kernel"])
        self.assertEqual((kernel["refcount"], kernel["unexplained"]), (2, 0), kernel)
        [holder] = kernel["referrers"]
        self.assertEqual((holder["edge"], holder["node"]["type"]),
                         ("<native: func_>", "torch::impl::dispatch::PythonKernelHolder"))
        [entry] = cli_json("referrers", snapshot, holder["node"]["address"])["referrers"]
        self.assertEqual((entry["edge"], entry["node"]["type"], entry["node"]["preview"]),
                         ("<native: kernels_[CPU]>", "c10::impl::OperatorEntry", "refscope_test::scale"))
        operator = cli_json("referrers", snapshot, entry["node"]["address"])
        self.assertEqual([(r["edge"], r["node"]["type"]) for r in operator["referrers"]],
                         [("<native: operators_>", "c10::Dispatcher")])

    def test_torch_and_pybind11_statics_are_not_high_confidence_suspects(self):
        """Nothing in the program leaks: what torch keeps from C++ (dispatcher
        kernels, dtype/layout registries, metaclass-made classes, pybind11
        default arguments and runtime types) is explained or low confidence."""
        rows = cli_json("suspects", self.info["snapshot"])["rows"]
        high = [(r["type"], r["objects"]) for r in rows if r["confidence"] == "high"]
        statics = ("function", "cell", "code", "torch.dtype", "torch.layout", "torch.memory_format",
                   "torch.qscheme", "numpy.ufunc", "torch.autograd.function.FunctionMeta", "torch._C._TensorMeta",
                   "pybind11_builtins.pybind11_type", "builtin_function_or_method", "PyCapsule")
        self.assertEqual([t for t, _ in high if t in statics], [], high)
        # PyTorch 2.14's bound redispatch_boxed methods (111 on 3.14) were a
        # high row before the probe inferred their C holders' references.
        self.assertNotIn("method", [t for t, _ in high], high)
        # Before the dispatcher and module globals were read: 31 rows.
        self.assertLessEqual(len(high), 3, high)

    def test_bound_methods_torch_keeps_in_c_objects_are_inferred_references(self):
        methods = self.info["redispatch_boxed"]
        if not methods:
            self.skipTest("this PyTorch release keeps no bound redispatch_boxed in C objects")
        for address in methods:
            with self.subTest(method=address):
                report = cli_json("referrers", self.info["snapshot"], address)
                self.assertEqual(report["unexplained"], 0, report)
                held = sorted((r["node"]["type"], r["owned"]) for r in report["referrers"] if r["inferred"])
                self.assertEqual(held, [("torch._C._PyObjectDispatchFunc", True),
                                        ("torch._C._PyObjectRedispatchFunc", True)], report["referrers"])
                self.assertTrue(all(r["edge"].startswith("<inferred: word at +")
                                    for r in report["referrers"] if r["inferred"]))

    def test_the_path_to_a_preserved_gradient_runs_through_its_parameter(self):
        path = cli_json("path", self.info["snapshot"], "--to", self.info["grad"])
        self.assertTrue(path["found"], path.get("explanation"))
        edges = [h["edge"] for h in path["hops"]]
        self.assertEqual(edges[-3:], ["<native: cdata>", "<native: autograd_meta_->grad_>",
                                      "<native: pyobj_slot_ (preserved)>"], edges)
        self.assertEqual(path["hops"][-2]["node"]["address"], self.info["grad_impl"])


@unittest.skipIf(torch is None, "torch does not import here")
class FinalizerCli(unittest.TestCase):
    """programs/torch_finalizer.py: a finalizer whose callback holds the
    torch.fx GraphModule that holds the layer it waits for."""

    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="refscope-torch-")
        cls.info = run_program("torch_finalizer.py", cls.workdir)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.workdir, True)

    def test_the_layer_is_the_first_suspect_and_its_finalizer_is_named(self):
        rows = cli_json("suspects", self.info["snapshot"], "--top", "5")["rows"]
        first = rows[0]
        self.assertEqual((first["type"], first["confidence"]), ("torch.nn.modules.linear.Linear", "high"),
                         [(r["type"], r["kinds"]) for r in rows])
        self.assertIn("own finalizer", first["kinds"])
        trap = first["finalizer"]
        self.assertEqual(trap["via"], "finalizer entry")
        self.assertEqual(trap["referent"]["address"], self.info["layer"])
        self.assertEqual(trap["holder"]["type"], "weakref.finalize._Info")
        # the layer's weight comes with it
        self.assertGreaterEqual(first["retained_bytes"], 512 * 512 * 4)
        self.assertEqual(cli_json("query", self.info["snapshot"], "type:__main__.Net")["objects"], 0)

    def test_the_path_runs_through_the_partial_and_the_graph_module(self):
        path = cli_json("path", self.info["snapshot"], "--to", self.info["layer"])
        self.assertTrue(path["found"], path.get("explanation"))
        types = [hop["node"]["type"] for hop in path["hops"]]
        self.assertIn("functools.partial", types)
        self.assertIn(self.info["graph_module"], [hop["node"]["address"] for hop in path["hops"]])
        self.assertEqual(path["finalizer"]["holder"]["type"], "weakref.finalize._Info")
        text = subprocess.run([cli(), "path", self.info["snapshot"], "--to", self.info["layer"]], check=True,
                              capture_output=True, text=True, timeout=120).stdout
        self.assertIn("finalizer trap: this path runs through weakref.finalize._Info", text)


if __name__ == "__main__":
    unittest.main()
