"""Drop-in APIs of other memory libraries over memscribe (:mod:`memscribe.compat.mem0`)."""
