"""Where plans are solved: a pool of solver processes, and the queue of stored plans."""
