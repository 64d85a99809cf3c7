"""`python -m memscribe …` is the `memscribe` command (for environments without the script on PATH)."""

from memscribe.interfaces.cli import main

if __name__ == "__main__":
    main()
