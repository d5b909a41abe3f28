"""playlab: the public face of the toolkit (the command line lives in ``playlab.cli``)."""
