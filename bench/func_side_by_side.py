"""torch.func transforms, ndgrad against torch in one process, one thread each (BLAS too), side by side:

    python bench/func_side_by_side.py [seconds per workload, default 2]

The model is the jacobians/hessians tutorial's tanh(W x + b) with W 16 x 16 (per-sample gradients: 64
samples); each row gives the best time of each library, the ratio ndgrad / torch and the largest
difference between their results (float32). `bench/run.py --only functional` times the same workloads
in separate processes with the suite's thread settings.
"""
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"   # before NumPy loads its BLAS

import numpy as np   # noqa: E402
import torch   # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))
import ndgrad   # noqa: E402   this checkout's


def workloads(T, size=16, batch=64):
    rs = np.random.RandomState(0)
    W, b, x = (T.tensor(a.astype(np.float32)) for a in (rs.randn(size, size), rs.randn(size), rs.randn(size)))
    xs = T.tensor(rs.randn(batch, size).astype(np.float32))
    F, f = T.nn.functional, T.func

    def predict(W, b, x):
        return F.linear(x, W, b).tanh()

    def loss(W, b, x):
        return predict(W, b, x).pow(2).sum()

    return {
        "jacrev": lambda: f.jacrev(predict, argnums=2)(W, b, x),
        "jacfwd": lambda: f.jacfwd(predict, argnums=2)(W, b, x),
        "jacfwd(jacfwd)": lambda: f.jacfwd(f.jacfwd(predict, argnums=2), argnums=2)(W, b, x),
        "jacrev(jacrev)": lambda: f.jacrev(f.jacrev(predict, argnums=2), argnums=2)(W, b, x),
        "hessian": lambda: f.hessian(predict, argnums=2)(W, b, x),
        "per-sample grads": lambda: f.vmap(f.grad(loss, argnums=(0, 1)), in_dims=(None, None, 0))(W, b, xs),
    }


def best(fn, budget):
    fn()
    times, start = [], time.perf_counter()
    while (time.perf_counter() - start < budget or len(times) < 2) and len(times) < 20:
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    torch.set_num_threads(1)
    ours, theirs = workloads(ndgrad), workloads(torch)
    print(f"{'workload':20s} {'torch ms':>10s} {'ndgrad ms':>10s} {'ratio':>7s}  max|diff|")
    for name in theirs:
        a, b = theirs[name](), ours[name]()
        a, b = (a if isinstance(a, tuple) else (a,)), (b if isinstance(b, tuple) else (b,))
        diff = max(float(np.abs(x.detach().numpy() - y.detach().numpy()).max()) for x, y in zip(a, b))
        t_torch, t_ours = best(theirs[name], budget), best(ours[name], budget)
        print(f"{name:20s} {t_torch * 1e3:10.2f} {t_ours * 1e3:10.2f} {t_ours / t_torch:7.1f}  {diff:.2e}", flush=True)


if __name__ == "__main__":
    main()
