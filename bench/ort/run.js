// Times one ONNX model with ONNX Runtime's CPU provider (onnxruntime-node),
// the speed reference of bench/fusion.py.
//
//   node bench/ort/run.js MODEL.onnx SPEC.json [--threads 2] [--min-time 0.5]
//                         [--profile PREFIX]
//
// SPEC.json lists the inputs ({"inputs": [{"name", "shape", "file"}]}, each
// file raw little-endian float32) and "outputs_dir", where each output is
// written as <name>.f32 (raw float32) for bench/fusion.py to compare. The
// session uses graph optimization level "all" (ORT's own fusions), one
// inter-op thread and --threads intra-op threads. After three warm-up runs it
// times enough runs to fill --min-time seconds (at least 3) and prints one
// JSON line: {"median_ms", "min_ms", "runs"}. With --profile, ORT's own
// profiler records every run (per node kernel times) into PREFIX_<date>.json
// (bench/layers.py reads it).
"use strict";
const fs = require("fs");
const path = require("path");
const ort = require("onnxruntime-node");

async function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const [modelPath, specPath] = args;
  const spec = JSON.parse(fs.readFileSync(specPath, "utf8"));
  const profile = args.indexOf("--profile");
  const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: ["cpu"],
    graphOptimizationLevel: "all",
    executionMode: "sequential",
    intraOpNumThreads: option("--threads", 2),
    interOpNumThreads: 1,
    ...(profile >= 0 ? { enableProfiling: true,
                         profileFilePrefix: args[profile + 1] } : {}),
  });
  const feeds = {};
  for (const input of spec.inputs) {
    const bytes = fs.readFileSync(input.file);
    const data = new Float32Array(bytes.buffer, bytes.byteOffset,
                                  bytes.byteLength / 4);
    feeds[input.name] = new ort.Tensor("float32", data, input.shape);
  }
  let outputs;
  for (let i = 0; i < 3; ++i) outputs = await session.run(feeds);
  const minTime = option("--min-time", 0.5) * 1000;
  const times = [];
  const start = performance.now();
  while (times.length < 3 || performance.now() - start < minTime) {
    const t0 = performance.now();
    await session.run(feeds);
    times.push(performance.now() - t0);
  }
  if (profile >= 0) session.endProfiling();
  times.sort((a, b) => a - b);
  fs.mkdirSync(spec.outputs_dir, { recursive: true });
  for (const [name, tensor] of Object.entries(outputs))
    fs.writeFileSync(path.join(spec.outputs_dir, name + ".f32"),
                     Buffer.from(tensor.data.buffer, tensor.data.byteOffset,
                                 tensor.data.byteLength));
  console.log(JSON.stringify({
    median_ms: times[Math.floor(times.length / 2)],
    min_ms: times[0],
    runs: times.length,
  }));
}

main().catch((err) => {
  console.error("ort: " + err.message);
  process.exit(1);
});
