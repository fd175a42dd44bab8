"""Code execution: the model runs the code it writes (``BuiltInCodeExecutor``).

yadk never runs model-written code on the local machine: google-adk's local and container
executors (``UnsafeLocalCodeExecutor``, ``ContainerCodeExecutor``, ...) are not provided, and a
config that names one gets a located error saying so.
"""

from yadk.code_executors._built_in import BaseCodeExecutor, BuiltInCodeExecutor

__all__ = ["BaseCodeExecutor", "BuiltInCodeExecutor"]

# For yadk's own packages; not part of the public contract (``__all__``). Their module
# loads with the names above anyway.
from yadk.code_executors._built_in import code_parts_as_text as code_parts_as_text
