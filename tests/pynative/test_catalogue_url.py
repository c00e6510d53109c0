"""`vision.catalogue.load(url)` natively (borch_vision::catalogue::fetch): the repository's
catalogue/ served by Python's http.server on 127.0.0.1 (a thread of this test), both shipped
entries loaded by URL and verified, tampered copies refused at their step (a flipped weights
byte: `weights sha256`; one extra byte or 4 KiB more: `weights size`; a changed expected output: `sample`),
missing files and an unreachable server refused naming the URL, a `file:` URL read from disk.
Nothing is cached natively: every load fetches both files and runs every step."""

import functools
import http.server
import json
import pathlib
import shutil
import socket
import threading

import pytest

import borch as torch
import borch.vision as torchvision

ROOT = pathlib.Path(__file__).resolve().parents[2]
NAMES = ["digits_mlp", "digits_cnn"]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(base URL, folder served): catalogue/ as shipped, and tampered copies beside it."""
    root = tmp_path_factory.mktemp("served")
    shutil.copytree(ROOT / "catalogue", root / "catalogue")
    for name in NAMES:
        text = (ROOT / "catalogue" / f"{name}.json").read_text()
        weights = (ROOT / "catalogue" / f"{name}.safetensors").read_bytes()
        flipped = bytearray(weights)
        flipped[len(flipped) // 2] ^= 1
        changed = json.loads(text)
        changed["sample"]["expected_output"][3] += 0.01
        for folder, manifest, data in [
            ("flipped", text, bytes(flipped)),
            ("longer", text, weights + b"\0"),
            ("much_longer", text, weights + bytes(4096)),
            ("changed", json.dumps(changed), weights),
            ("no_weights", text, None),
        ]:
            d = root / folder
            d.mkdir(exist_ok=True)
            (d / f"{name}.json").write_text(manifest)
            if data is not None:
                (d / f"{name}.safetensors").write_bytes(data)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


def refused(url, step):
    with pytest.raises(RuntimeError) as e:
        torchvision.catalogue.load(url)
    assert f": {step}: " in str(e.value), str(e.value)
    return str(e.value)


@pytest.mark.parametrize("name", NAMES)
def test_both_entries_load_by_url_and_verify(served, name):
    base, _ = served
    entry = torchvision.catalogue.load(f"{base}/catalogue/{name}.json")
    m, s = entry.manifest, entry.manifest["sample"]
    assert m["name"] == name and m["weights"]["file"] == f"{name}.safetensors"
    assert entry.source == "network" and entry.cached is False and entry.refused_cache is None
    assert 0 <= entry.max_sample_diff <= s["tolerance"]
    assert entry.model.training is False
    with torch.no_grad():
        y = entry.model(torch.tensor(s["input"]).reshape(s["input_shape"]))
    got = [v for row in y.tolist() for v in row]
    assert max(abs(a - b) for a, b in zip(got, s["expected_output"])) <= s["tolerance"]
    # cache=False changes nothing natively (nothing is cached either way); a query is ignored
    # when the weights' URL is made.
    again = torchvision.catalogue.load(f"{base}/catalogue/{name}.json?v=2", cache=False)
    assert again.source == "network" and again.max_sample_diff == entry.max_sample_diff


@pytest.mark.parametrize("name", NAMES)
def test_tampered_copies_are_refused_at_their_step(served, name):
    base, _ = served
    e = refused(f"{base}/flipped/{name}.json", "weights sha256")
    assert e.startswith(f"catalogue '{name}': weights sha256: mismatch"), e
    e = refused(f"{base}/longer/{name}.json", "weights size")
    assert e.startswith(f"catalogue '{name}': weights size: expected "), e
    size = len((ROOT / "catalogue" / f"{name}.safetensors").read_bytes())
    e = refused(f"{base}/much_longer/{name}.json", "weights size")
    assert e == (f"catalogue '{name}': weights size: expected {size} bytes, "
                 f"got more than {size + 1}"), e
    e = refused(f"{base}/changed/{name}.json", "sample")
    assert e.startswith(f"catalogue '{name}': sample: output differs"), e
    url = f"{base}/no_weights/{name}.safetensors"
    e = refused(f"{base}/no_weights/{name}.json", "weights")
    assert e == f"catalogue '{name}': weights: could not read {url}: HTTP 404 Not Found", e


def test_missing_manifest_and_unreachable_server_name_the_url(served):
    base, _ = served
    url = f"{base}/catalogue/no_such_entry.json"
    with pytest.raises(RuntimeError) as e:
        torchvision.catalogue.load(url)
    assert str(e.value) == f"catalogue: manifest: could not read {url}: HTTP 404 Not Found"
    with socket.socket() as s:  # a port nothing listens on once this socket is closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/catalogue/digits_mlp.json"
    with pytest.raises(RuntimeError) as e:
        torchvision.catalogue.load(url)
    assert str(e.value).startswith(f"catalogue: manifest: could not read {url}: "), str(e.value)
    assert torch.ones(2).sum().item() == 2.0


def test_file_urls_and_paths(served):
    _, root = served
    path = root / "catalogue" / "digits_mlp.json"
    entry = torchvision.catalogue.load(path.as_uri())
    assert entry.manifest["name"] == "digits_mlp" and entry.source == path.as_uri()
    assert torchvision.catalogue.load(str(path)).source == str(path)
    refused((root / "flipped" / "digits_cnn.json").as_uri(), "weights sha256")
    missing = (root / "nowhere.json").as_uri()
    with pytest.raises(RuntimeError, match="catalogue: manifest: could not read"):
        torchvision.catalogue.load(missing)
