"""apply_chat_template on a tokenizer that ships no chat template.

Run: python repro.py

CPU only, no download: a tiny word-level tokenizer is built with the tokenizers library and
saved the way a base (non-instruct) checkpoint is, without a chat_template. Under a second.

    python repro.py
        apply_chat_template(messages) raises "Cannot use chat template functions because
        tokenizer.chat_template is not set and no template argument was passed!".
    python repro.py --fixed
        Sets tokenizer.chat_template, saves and reloads the tokenizer (the template is written
        to chat_template.jinja) and formats the same messages; exit code 0.
"""

import argparse
import sys
import tempfile
from pathlib import Path

from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import AutoTokenizer, PreTrainedTokenizerFast

TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }}{{ eos_token }}{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    vocab = {w: i for i, w in enumerate(["<unk>", "<s>", "</s>", "hello", "how", "are", "you", "?"])}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    messages = [{"role": "user", "content": "hello how are you ?"}]

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "base-tokenizer"
        PreTrainedTokenizerFast(
            tokenizer_object=backend, bos_token="<s>", eos_token="</s>", unk_token="<unk>"
        ).save_pretrained(folder)
        tok = AutoTokenizer.from_pretrained(folder)
        print(f"chat_template: {tok.chat_template!r}", flush=True)
        if args.fixed:
            tok.chat_template = TEMPLATE
            tok.save_pretrained(folder)
            tok = AutoTokenizer.from_pretrained(folder)
            print("saved files:", sorted(f.name for f in folder.iterdir()), flush=True)
        text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        print(f"formatted: {text!r}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
