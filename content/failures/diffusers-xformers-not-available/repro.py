# The xformers block of diffusers' examples/*/train_*.py, around a tiny randomly initialised UNet.
import argparse
import logging

from diffusers import UNet2DConditionModel
from diffusers.utils.import_utils import is_xformers_available
from packaging import version

logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", level=logging.INFO)
logger = logging.getLogger(__name__)

parser = argparse.ArgumentParser()
parser.add_argument("--enable_xformers_memory_efficient_attention", action="store_true")
parser.add_argument("--direct", action="store_true", help="call the model method without the script's check")
args = parser.parse_args()

unet = UNet2DConditionModel(
    sample_size=8,
    in_channels=4,
    out_channels=4,
    layers_per_block=1,
    block_out_channels=(32, 64),
    down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
    up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
    cross_attention_dim=32,
    attention_head_dim=8,
)
logger.info("UNet loaded")

if args.direct:
    unet.enable_xformers_memory_efficient_attention()
elif args.enable_xformers_memory_efficient_attention:
    if is_xformers_available():
        import xformers

        xformers_version = version.parse(xformers.__version__)
        if xformers_version == version.parse("0.0.16"):
            logger.warning("xFormers 0.0.16 cannot be used for training in some GPUs. ...")
        unet.enable_xformers_memory_efficient_attention()
    else:
        raise ValueError("xformers is not available. Make sure it is installed correctly")
logger.info("attention set up, starting training")
