# Cells of a notebook, run top to bottom in one kernel.
from accelerate import Accelerator, notebook_launcher

accelerator = Accelerator()  # cell 3: created at top level "to check the setup"


def training_function():
    accelerator = Accelerator()
    accelerator.print("training on", accelerator.num_processes, "processes")


notebook_launcher(training_function, num_processes=2)
