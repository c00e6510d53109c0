# The model catalogue through borch_webgpu (docs/vision.md, "Model catalogue"), written as a
# Python user writes it: both shipped entries of /catalogue/ load and verify, the model returned
# gives the sample's classes, a second load comes from the Cache API, tampered copies are refused
# naming their step (a flipped weights byte, a changed expected output, a tampered cache entry).
# Run by catalogue_py.mjs with runPythonAsync (ADAPTER set by the page); top-level await reads
# the files and the Cache API directly.
import json
import time

from js import Response, caches, fetch
from pyodide.ffi import to_js

import borch_webgpu as torch
import borch_webgpu.vision as torchvision

CACHE = "borch-catalogue-v1"
checks = 0


def check(what, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        raise AssertionError(f"{what}: failed {detail}")


def refused(what, fn, step):
    try:
        fn()
    except RuntimeError as e:
        check(f"{what}: names the step '{step}'", f": {step}: " in str(e), str(e))
        return str(e)
    raise AssertionError(f"{what}: a tampered copy loaded")


def argmax_rows(values, cols):
    rows = [values[i:i + cols] for i in range(0, len(values), cols)]
    return [row.index(max(row)) for row in rows]


async def read(url):
    return (await (await fetch(url)).arrayBuffer()).to_bytes()


await caches.delete(CACHE)
cache = await caches.open(CACHE)
entries = 0
for name in ["digits_mlp", "digits_cnn"]:
    url = f"/catalogue/{name}.json"
    t0 = time.perf_counter()
    first = torchvision.catalogue.load(url)
    ms = (time.perf_counter() - t0) * 1000
    m = first.manifest
    s = m["sample"]
    check(f"{name}: manifest", m["name"] == name and m["weights"]["file"] == f"{name}.safetensors")
    check(f"{name}: from the network, cached", first.source == "network" and first.cached is True,
          f"{first.source} {first.cached}")
    check(f"{name}: no refused cache", first.refused_cache is None, str(first.refused_cache))
    check(f"{name}: within the tolerance", 0 <= first.max_sample_diff <= s["tolerance"],
          str(first.max_sample_diff))
    model = first.model
    check(f"{name}: eval mode", model.training is False)
    with torch.no_grad():
        y = model(torch.tensor(s["input"]).reshape(s["input_shape"]))
    got = [v for row in y.tolist() for v in row]
    cols = s["output_shape"][1]
    check(f"{name}: the model gives the sample's classes",
          argmax_rows(got, cols) == argmax_rows(s["expected_output"], cols))
    print(f"catalogue[py] {name}: loaded and verified ({first.source}, {ms:.0f} ms), "
          f"{m['weights']['bytes']} bytes of weights, sample {s['input_shape']} -> "
          f"{s['output_shape']}, max sample diff {first.max_sample_diff:.2e} (tolerance "
          f"{s['tolerance']}) [{ADAPTER}]")
    entries += 1

    second = torchvision.catalogue.load(url)
    check(f"{name}: second load from the cache", second.source == "cache", second.source)
    print(f"catalogue[py] {name}: second load from the {second.source}, verified again, "
          f"max sample diff {second.max_sample_diff:.2e}")

    text = (await (await fetch(url)).text())
    weights_url = f"/catalogue/{m['weights']['file']}"
    weights = await read(weights_url)
    flipped = bytearray(weights)
    flipped[len(flipped) // 2] ^= 1
    print("  flipped byte: " + refused(f"{name} flipped byte",
          lambda: torchvision.catalogue.load_from(text, bytes(flipped)), "weights sha256"))
    changed = json.loads(text)
    changed["sample"]["expected_output"][3] += 0.01
    print("  changed expected output: " + refused(f"{name} changed output",
          lambda: torchvision.catalogue.load_from(json.dumps(changed), weights), "sample"))
    good = torchvision.catalogue.load_from(text, weights)
    check(f"{name}: load_from of the good copy", good.source == "bytes")

    await cache.put(weights_url, Response.new(to_js(bytes(flipped))))
    after = torchvision.catalogue.load(url)
    check(f"{name}: tampered cached weights refused",
          after.source == "network" and f"catalogue '{name}': weights sha256: mismatch"
          in (after.refused_cache or ""), f"{after.source} {after.refused_cache}")
    print(f"  tampered cache entry (weights): refused, evicted, fetched again: {after.refused_cache}")
    cached_again = (await (await cache.match(weights_url)).arrayBuffer()).to_bytes()
    check(f"{name}: the good weights are cached again", cached_again == weights)
    check(f"{name}: third load from the cache", torchvision.catalogue.load(url).source == "cache")
    await cache.put(url, Response.new(json.dumps(changed)))
    after = torchvision.catalogue.load(url)
    check(f"{name}: tampered cached manifest refused at the sample",
          after.source == "network" and f"catalogue '{name}': sample: output differs"
          in (after.refused_cache or ""), f"{after.source} {after.refused_cache}")
    print(f"  tampered cache entry (expected output): refused, evicted, fetched again: "
          f"{after.refused_cache}")

try:
    torchvision.catalogue.load("/catalogue/no_such_entry.json")
    raise AssertionError("a missing manifest loaded")
except RuntimeError as e:
    check("a missing manifest", str(e).startswith("catalogue: manifest: could not read"), str(e))
    print(f"missing manifest: {e}")
try:
    torchvision.catalogue.load(42)
    raise AssertionError("load(42) loaded")
except TypeError as e:
    print(f"wrong argument: TypeError: {e}")
    checks += 1
print(f"catalogue[py]: {entries} entries loaded and verified, {checks} checks passed")
