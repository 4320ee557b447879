"""torch.load recreates every storage on the device it was saved from; a GPU checkpoint loaded on a machine
without that GPU fails unless map_location says where to put it.

Run: python repro.py

CPU only, one process, 1-2 s per variant. A CUDA checkpoint is imitated by tagging every storage
'cuda:<n>' while saving (torch.serialization.location_tag is what torch.save records per storage);
the loading side runs the real, unpatched code of a CPU-only machine.

    python repro.py
        Checkpoint saved from cuda:0, loaded without map_location on this CPU-only machine:
        "RuntimeError: Attempting to deserialize object on a CUDA device but
        torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use
        torch.load with map_location=torch.device('cpu') to map your storages to the CPU."
    python repro.py --bad-map-location
        map_location="gpu" (not a device string torch knows):
        "RuntimeError: don't know how to restore data location of torch.storage.UntypedStorage (tagged with gpu)".
    python repro.py --device-count
        Checkpoint saved from cuda:3, loaded where CUDA is available with one device. There is no GPU
        here, so torch.cuda.is_available/device_count are patched to report 1 device; the message is
        raised by the real torch.serialization._validate_device:
        "Attempting to deserialize object on CUDA device 3 but torch.cuda.device_count() is 1. ..."
    python repro.py --fixed
        The same cuda:0 checkpoint with map_location="cpu" (and the dict form {"cuda:3": "cpu"}):
        loads; prints the devices of the loaded tensors. Exit code 0.

Every variant except --fixed exits with code 1.
"""

import argparse
import os
import tempfile
from unittest import mock

import torch
import torch.nn as nn


def save_as_if_on(device, obj, path):
    """torch.save, recording `device` as the location of every storage (as a GPU run would)."""
    with mock.patch("torch.serialization.location_tag", lambda storage: device):
        torch.save(obj, path)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--bad-map-location", action="store_true")
    g.add_argument("--device-count", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)

    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    ckpt = {"model": model.state_dict(), "step": 1200}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "step1200.pt")
        saved_on = "cuda:3" if args.device_count else "cuda:0"
        save_as_if_on(saved_on, ckpt, path)
        print(f"checkpoint written by a job on {saved_on}: {path}", flush=True)
        print(
            f"this machine: torch {torch.__version__}, cuda available: {torch.cuda.is_available()}",
            flush=True,
        )

        if args.fixed:
            sd = torch.load(path, map_location="cpu", weights_only=True)
            print("map_location='cpu':", {t.device.type for t in sd["model"].values()}, flush=True)
            sd = torch.load(path, map_location={"cuda:0": "cpu", "cuda:3": "cpu"}, weights_only=True)
            model.load_state_dict(sd["model"])
            print("dict map_location: loaded, step", sd["step"], flush=True)
        elif args.bad_map_location:
            torch.load(path, map_location="gpu", weights_only=True)
        elif args.device_count:
            with (
                mock.patch("torch.cuda.is_available", return_value=True),
                mock.patch("torch.cuda.device_count", return_value=1),
            ):
                torch.load(path, weights_only=True)
        else:
            torch.load(path, weights_only=True)  # no map_location: back to cuda:0


if __name__ == "__main__":
    main()
