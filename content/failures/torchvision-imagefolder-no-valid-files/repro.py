"""Build the folder layouts behind ImageFolder's errors and load each one.

python repro.py            # creates ./flat, ./data/train (with .ipynb_checkpoints), ./heic/train
"""

import os

from PIL import Image
from torchvision import datasets


def img(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.new("RGB", (8, 8)).save(path)


img("flat/img_001.jpg")  # images directly in root, no class folders
img("data/train/cat/cat_001.jpg")
img("data/train/dog/dog_001.jpg")
os.makedirs("data/train/.ipynb_checkpoints", exist_ok=True)  # what Jupyter leaves behind
os.makedirs("heic/train/cat", exist_ok=True)
open("heic/train/cat/IMG_0001.HEIC", "wb").write(b"x")  # extension ImageFolder ignores
img("heic/train/dog/dog_001.png")

for root in ["flat", "data/train", "heic/train"]:
    try:
        ds = datasets.ImageFolder(root)
        print(root, "->", len(ds), ds.classes)
    except FileNotFoundError as e:
        print(root, "->", type(e).__name__ + ":", e)

ds = datasets.ImageFolder("data/train", allow_empty=True)  # torchvision >= 0.18
print("allow_empty:", len(ds), ds.class_to_idx)
