"""Merge a LoRA adapter into a 4-bit bitsandbytes base model (tiny random Llama, CPU).

Run: python repro.py   (torch 2.13.0 CPU, bitsandbytes 0.48.2, transformers 4.57.1, peft 0.17.1)
"""

import tempfile

import torch
from peft import LoraConfig, get_peft_model
from transformers import BitsAndBytesConfig, LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
cfg = LlamaConfig(
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=4,
    vocab_size=128,
)
with tempfile.TemporaryDirectory() as base_dir:
    LlamaForCausalLM(cfg).save_pretrained(base_dir)
    model = LlamaForCausalLM.from_pretrained(
        base_dir,
        quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float32),
        device_map="cpu",
    )
print("base q_proj:", type(model.model.layers[0].self_attn.q_proj).__name__)
model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"], init_lora_weights=False))
ids = torch.tensor([[1, 2, 3, 4, 5]])
with torch.no_grad():
    before = model(ids).logits
merged = model.merge_and_unload()
with torch.no_grad():
    after = merged(ids).logits
print("merged q_proj:", type(merged.model.layers[0].self_attn.q_proj).__name__)
print("max |logits(base+adapter) - logits(merged)|:", (before - after).abs().max().item())
