"""Child process for the crash and concurrency tests: writes messages, printing each acknowledged id."""

import sys

from memscribe import Memory

home, proc, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
words = ["kayak", "violin", "tulip", "granite", "saffron", "lantern", "meadow", "harbor", "quartz", "falcon"]
mem = Memory(home=home)
for i in range(n):
    w = words[i % len(words)]
    mid = f"{proc}-{i}"
    mem.add(
        {"role": "user", "content": f"I bought item {proc}{i:04d}, a {w} numbered {i * 7 + 3}.", "id": mid},
        user_id="shared-user",
        session_id=f"s-{proc}",
    )
    print(mid, flush=True)
mem.close()
