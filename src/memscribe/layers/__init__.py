"""Short-lived layers: session memory (recent turns + rolling summary) and working memory (task state)."""
