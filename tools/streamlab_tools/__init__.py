"""Python tools for CUDA Streams Lab: read, analyse and plot the timelines the labs record."""
