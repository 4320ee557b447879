from accelerate import Accelerator
a = Accelerator()
print("processes:", a.num_processes, "mixed_precision:", a.mixed_precision, "device:", a.device)
