#!/usr/bin/env python3
"""Writes gpu_check.json and gpu_check.md from what bench/gpu_check.sh left in its folder:
the device, each template's build-and-verify outcome, GEMM and ResNet-18 against cuBLAS and
cuDNN (ratio = vendor time / tensortune time: above 1 is faster than the vendor library),
tuning wall clock and trials by status. Standard library only."""
import argparse
import json
import os
import re
import statistics


def read_text(folder, name):
    try:
        with open(os.path.join(folder, name), errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def read_json(folder, name):
    text = read_text(folder, name)
    try:
        return json.loads(text)
    except ValueError:
        return None


def tail(text, lines=3):
    return " / ".join(line.strip() for line in text.strip().splitlines()[-lines:])


def steps_by_name(folder):
    steps = {}
    for line in read_text(folder, "steps.jsonl").splitlines():
        try:
            step = json.loads(line)
            steps[step["step"]] = step
        except (ValueError, KeyError):
            continue
    return steps


def template_results(folder, steps):
    recorded = {}  # the database's statuses per template: what a step killed at its limit measured
    for row in read_json(folder, "statuses.json") or []:
        recorded.setdefault(row["template"], {})[row["status"]] = recorded.get(row["template"], {}).get(
            row["status"], 0) + row["trials"]
    results = []
    for line in read_text(folder, "template_shapes.txt").splitlines():
        op, template, shape = line.split(" ", 2)
        name = f"template_{template}"
        summary = read_json(folder, f"{name}.txt")
        statuses = summary.get("statuses", {}) if isinstance(summary, dict) else recorded.get(template, {})
        step = steps.get(name, {})
        verdict = "verified" if statuses.get("ok", 0) > 0 else "failed"
        results.append({"op": op, "template": template, "shape": shape, "statuses": statuses, "verdict": verdict,
                        "exit": step.get("rc"), "wall_s": step.get("wall_s"),
                        "error": "" if statuses.get("ok") else tail(read_text(folder, f"{name}.txt"))})
    return results


def best_recorded(folder):
    """The fastest ok trial per workload in the check's database: what a step killed at its time
    limit measured before it printed its summary."""
    best = {}
    for row in read_json(folder, "best.json") or []:
        key = row.get("workload")
        if row.get("time_s") and (key not in best or row["time_s"] < best[key]["time_s"]):
            best[key] = row
    return best


def gemm_results(folder, steps, baselines):
    recorded = best_recorded(folder)
    results = []
    for name in sorted(steps):
        match = re.fullmatch(r"gemm_(\d+)x(\d+)x(\d+)", name)
        if not match:
            continue
        m, n, k = (int(v) for v in match.groups())
        workload = f"gemm:m={m},n={n},k={k}"
        summary = read_json(folder, f"{name}.txt")
        best = (summary or {}).get("best") or recorded.get(workload, {})
        ours = best.get("time_s")
        vendor = baselines.get("gemm", {}).get(workload)
        results.append({"workload": workload, "time_s": ours, "gflops": best.get("gflops"),
                        "cublas_time_s": vendor, "ratio": vendor / ours if ours and vendor else None,
                        "trials": (summary or {}).get("trials"), "statuses": (summary or {}).get("statuses", {}),
                        "tuning_wall_s": steps[name].get("wall_s"),
                        "error": "" if ours else tail(read_text(folder, f"{name}.txt"))})
    return results


def network_results(folder, steps, baselines):
    summary = read_json(folder, "resnet18.txt")
    recorded = best_recorded(folder)
    if not isinstance(summary, dict):
        tasks = read_json(folder, "resnet18_tasks.json")
        if not tasks:
            return {"error": tail(read_text(folder, "resnet18.txt")) or "no tune-network output"}
        # Killed at its time limit: the tasks with what the database holds for them.
        summary = {"tasks": [dict(task, best=recorded.get(task["workload"])) for task in tasks]}
    layers = []
    for task in summary.get("tasks", []):
        best = task.get("best") or {}
        ours = best.get("time_s")
        vendor = baselines.get(task.get("op"), {}).get(task.get("workload"))
        layers.append({"workload": task.get("workload"), "op": task.get("op"), "weight": task.get("weight"),
                       "template": best.get("template"), "time_s": ours, "vendor_time_s": vendor,
                       "ratio": vendor / ours if ours and vendor else None})
    conv_ratios = [layer["ratio"] for layer in layers if layer["op"] == "conv2d" and layer["ratio"]]
    return {"latency_s": summary.get("latency_s"), "default_latency_s": summary.get("default_latency_s"),
            "trials_used": summary.get("trials_used"), "trials_budget": summary.get("trials_budget"),
            "tasks_at_default": summary.get("tasks_at_default"), "interrupted": summary.get("interrupted"),
            "tuning_wall_s": steps.get("resnet18", {}).get("wall_s"), "layers": layers,
            "conv_median_ratio": statistics.median(conv_ratios) if conv_ratios else None}


def statuses_total(folder):
    totals = {}
    for row in read_json(folder, "statuses.json") or []:
        totals[row["status"]] = totals.get(row["status"], 0) + row["trials"]
    return totals


def fmt(value, spec):
    return "n/a" if value is None else format(value, spec)


def markdown(report):
    lines = [f"# GPU check ({'dry run, ' if report['dry_run'] else ''}{report['device_used']})", "",
             f"- bundle `{report['bundle']}`, commit `{report['commit']}`",
             f"- GPU (nvidia-smi): {report['nvidia_smi'] or 'none'}",
             f"- NVIDIA OpenCL library: {', '.join(report['nvidia_opencl_libraries']) or 'not found'}; "
             f"ICD files: {', '.join(report['icd_files']) or 'none'}",
             f"- vendor baselines: {report['baselines_device'] or 'not measured (no PyTorch with CUDA)'}",
             f"- trials by status: {json.dumps(report['statuses'], sort_keys=True)}", "",
             "```", report["devices"].strip(), "```", "",
             "## Templates (build and verify on a small shape)", "",
             "| op | template | shape | verdict | statuses | note |", "|---|---|---|---|---|---|"]
    for t in report["templates"]:
        lines.append(f"| {t['op']} | {t['template']} | `{t['shape']}` | {t['verdict']} | "
                     f"{json.dumps(t['statuses'], sort_keys=True)} | {t['error'][:160]} |")
    lines += ["", "## GEMM against cuBLAS (float32, TF32 off)", "",
              "| workload | tensortune ms | GFLOPS | cuBLAS ms | ratio | trials | tuning s |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for g in report["gemm"]:
        lines.append(f"| {g['workload']} | {fmt(g['time_s'] and g['time_s'] * 1e3, '.4f')} | {fmt(g['gflops'], '.0f')} | "
                     f"{fmt(g['cublas_time_s'] and g['cublas_time_s'] * 1e3, '.4f')} | {fmt(g['ratio'], '.2f')} | "
                     f"{g['trials']} | {fmt(g['tuning_wall_s'], '.0f')} |")
    net = report["resnet18"]
    lines += ["", "## ResNet-18 against cuDNN (float32, TF32 off)", ""]
    if "error" in net:
        lines.append(f"tune-network failed: {net['error']}")
    else:
        lines += [f"- estimated latency {fmt(net['latency_s'] and net['latency_s'] * 1e3, '.3f')} ms "
                  f"(untuned defaults {fmt(net['default_latency_s'] and net['default_latency_s'] * 1e3, '.3f')} ms), "
                  f"{net['trials_used']} of {net['trials_budget']} trials in {fmt(net['tuning_wall_s'], '.0f')} s",
                  f"- convolutions, median ratio against cuDNN: {fmt(net['conv_median_ratio'], '.2f')}", "",
                  "| workload | weight | sketch | tensortune ms | vendor ms | ratio |", "|---|---:|---|---:|---:|---:|"]
        for layer in net["layers"]:
            lines.append(f"| {layer['workload']} | {layer['weight']} | {layer['template']} | "
                         f"{fmt(layer['time_s'] and layer['time_s'] * 1e3, '.4f')} | "
                         f"{fmt(layer['vendor_time_s'] and layer['vendor_time_s'] * 1e3, '.4f')} | "
                         f"{fmt(layer['ratio'], '.2f')} |")
    lines += ["", "## Steps", "", "| step | exit | wall s |", "|---|---:|---:|"]
    for step in report["steps"].values():
        lines.append(f"| {step['step']} | {step['rc']} | {step['wall_s']} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--bundle", default="")
    parser.add_argument("--commit", default="")
    parser.add_argument("--dry-run", default="0")
    args = parser.parse_args()
    folder = args.out
    steps = steps_by_name(folder)
    baselines = read_json(folder, "baselines.json") or {}
    report = {
        "dry_run": args.dry_run == "1", "device_used": args.device, "bundle": args.bundle, "commit": args.commit.strip(),
        "devices": read_text(folder, "devices.txt"),
        "nvidia_smi": read_text(folder, "nvidia_smi.txt").strip() if "failed" not in read_text(folder, "nvidia_smi.txt")
        and "not found" not in read_text(folder, "nvidia_smi.txt") else "",
        "nvidia_opencl_libraries": read_text(folder, "nvidia_opencl_libraries.txt").split(),
        "icd_files": [f for f in read_text(folder, "icd_files.txt").split() if f.endswith(".icd")],
        "baselines_device": baselines.get("device"), "steps": steps,
        "templates": template_results(folder, steps), "gemm": gemm_results(folder, steps, baselines),
        "resnet18": network_results(folder, steps, baselines), "statuses": statuses_total(folder)}
    with open(os.path.join(folder, "gpu_check.json"), "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(folder, "gpu_check.md"), "w") as f:
        f.write(markdown(report))


if __name__ == "__main__":
    main()
