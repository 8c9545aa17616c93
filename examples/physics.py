"""Physics with autograd.functional, in two parts.

1. Forces from an energy: a Lennard-Jones cluster. The forces are minus the gradient of the
   potential energy (autograd.functional.jacobian), so relaxing the cluster and running molecular
   dynamics need only the energy function; the Hessian (autograd.functional.hessian) at the
   minimum gives the vibrational spectrum, with six zero modes (three translations, three
   rotations). Velocity Verlet then conserves the total energy.
2. Fitting an ODE: the frequency and damping of an oscillator x'' = -w^2 x - 2 z w x' are
   recovered from noisy samples by Gauss-Newton, with the Jacobian of the residuals taken
   through a differentiable RK4 integrator (autograd.functional.jacobian in forward mode: two
   parameters, so two forward-mode passes instead of one backward pass per sample).

    python examples/physics.py            # 13 atoms, 2000 MD steps
    python examples/physics.py --small    # 7 atoms, a short run
"""
import argparse
import math

import ndgrad as torch
from ndgrad.autograd.functional import hessian, jacobian


# ---- 1. a Lennard-Jones cluster -------------------------------------------------------------
def lj_energy(positions):
    """Sum over pairs of 4 (r^-12 - r^-6) for positions (N, 3), in reduced units."""
    n = positions.shape[0]
    diff = positions.unsqueeze(0) - positions.unsqueeze(1)
    pair = ~torch.eye(n, dtype=torch.bool)             # i != j (each pair counted twice)
    r2 = (diff * diff).sum(-1)[pair]
    inv6 = r2.reciprocal() ** 3
    return 2.0 * (inv6 * inv6 - inv6).sum()


def forces(positions):
    return -jacobian(lj_energy, positions)


def start_cluster(atoms, seed):
    """Atoms on a jittered cubic lattice with spacing near the pair-potential minimum (2^(1/6))."""
    gen = torch.Generator().manual_seed(seed)
    side = math.ceil(atoms ** (1 / 3))
    i = torch.arange(atoms)
    grid = torch.stack([i // (side * side), (i // side) % side, i % side], 1).double()
    return grid * 1.12 + 0.05 * torch.randn(atoms, 3, dtype=torch.float64, generator=gen)


def relax(x, steps, step_size=0.005):
    """Steepest descent along the forces, with the step capped so no atom jumps."""
    for _ in range(steps):
        f = forces(x)
        x = x + (step_size * f).clamp(-0.05, 0.05)
    return x


def molecular_dynamics(x, steps, dt=0.002, temperature=0.05, seed=0):
    """Velocity Verlet from random velocities (no net momentum); returns the total energies."""
    gen = torch.Generator().manual_seed(seed)
    v = torch.randn(x.shape, dtype=x.dtype, generator=gen) * math.sqrt(temperature)
    v = v - v.mean(0)
    f, energies = forces(x), []
    for _ in range(steps):
        v = v + 0.5 * dt * f
        x = x + dt * v
        f = forces(x)
        v = v + 0.5 * dt * f
        energies.append((lj_energy(x) + 0.5 * (v * v).sum()).item())
    return energies


# ---- 2. fitting an ODE through its integrator -----------------------------------------------
def oscillator(params, x0=1.0, v0=0.0, t_end=6.0, steps=120):
    """Positions of x'' = -w^2 x - 2 z w x' at `steps` times, integrated with RK4 (differentiable)."""
    w, z = params[0], params[1]
    dt = t_end / steps

    def rate(x, v):
        return v, -w * w * x - 2 * z * w * v
    x, v, out = torch.tensor(x0, dtype=params.dtype), torch.tensor(v0, dtype=params.dtype), []
    for _ in range(steps):
        k1 = rate(x, v)
        k2 = rate(x + 0.5 * dt * k1[0], v + 0.5 * dt * k1[1])
        k3 = rate(x + 0.5 * dt * k2[0], v + 0.5 * dt * k2[1])
        k4 = rate(x + dt * k3[0], v + dt * k3[1])
        x = x + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        v = v + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        out.append(x)
    return torch.stack(out)


def fit_oscillator(observed, guess, iterations, steps):
    """Gauss-Newton on the residuals r(p) = model(p) - observed: p -= (J^T J)^-1 J^T r."""
    params = guess.clone()
    for _ in range(iterations):
        def residuals(p):
            return oscillator(p, steps=steps) - observed
        r = residuals(params)
        J = jacobian(residuals, params, vectorize=True, strategy="forward-mode")   # (samples, 2): 2 forward passes
        params = params - torch.linalg.solve(J.T @ J, J.T @ r)
    return params, (residuals(params) ** 2).mean().sqrt().item()


def main(argv=None):
    parser = argparse.ArgumentParser(description="Forces from an energy and an ODE fit with autograd.functional")
    parser.add_argument("--atoms", type=int, default=13)
    parser.add_argument("--md-steps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--small", action="store_true", help="7 atoms, 200 MD steps, a coarse ODE (a smoke test)")
    args = parser.parse_args(argv)
    atoms, md_steps, ode_steps = (7, 200, 60) if args.small else (args.atoms, args.md_steps, 120)

    x = relax(start_cluster(atoms, args.seed), 400 if args.small else 1500)
    f_max = forces(x).abs().max().item()
    print(f"{atoms}-atom Lennard-Jones cluster relaxed: energy {lj_energy(x).item():.4f}, "
          f"largest force {f_max:.1e}")
    H = hessian(lj_energy, x).reshape(3 * atoms, 3 * atoms)
    eigenvalues = torch.linalg.eigvalsh(H)
    zero = (eigenvalues.abs() < 1e-2 * eigenvalues.max()).sum().item()
    print(f"Hessian: {zero} near-zero modes (translations and rotations), stiffest mode {eigenvalues.max().item():.1f}")
    energies = molecular_dynamics(x, md_steps, seed=args.seed)
    drift = max(energies) - min(energies)
    print(f"velocity Verlet, {md_steps} steps: total energy {energies[0]:.5f}, spread {drift:.1e}")

    truth = torch.tensor([2.0, 0.1], dtype=torch.float64)
    gen = torch.Generator().manual_seed(args.seed)
    observed = oscillator(truth, steps=ode_steps) + 0.01 * torch.randn(ode_steps, dtype=torch.float64, generator=gen)
    fitted, rms = fit_oscillator(observed, torch.tensor([1.7, 0.3], dtype=torch.float64), 6, ode_steps)
    print(f"oscillator fit from (1.7, 0.3): w = {fitted[0].item():.4f}, z = {fitted[1].item():.4f} "
          f"(truth 2.0, 0.1), rms residual {rms:.4f}")
    return {"max_force": f_max, "zero_modes": zero, "energy_spread": drift, "fitted": fitted.tolist()}


if __name__ == "__main__":
    main()
