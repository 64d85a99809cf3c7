"""What a Chinese write costs in memory: no library that loads hundreds of megabytes at import for one
number (SnowNLP: 410 MB for its sentiment; jionlp for a lexicon file). Checked in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys

from memscribe.write.trigger import sentiment

_PROBE = r"""
import json, sys, tempfile
from memscribe import Memory
m = Memory(home=tempfile.mkdtemp())
m.add("这家店太差了，我再也不来了，取消订单！", user_id="u")
m.add("下个月我要搬到南京市鼓楼区中山路18号去，新工作是会计。", user_id="u")
m.search("我搬到哪里了？", user_id="u")
m.flush()
m.close()
print(json.dumps(sorted(k for k in ("snownlp", "jionlp") if k in sys.modules)))
"""


def test_a_chinese_complaint_and_address_load_neither_snownlp_nor_jionlp():
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300, check=True
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_chinese_sentiment_still_separates_complaints_from_praise():
    for text in ("这家店太差了，我再也不来了，取消订单！", "我被骗了，气死我了", "搬家太累了，烦死了"):
        assert sentiment(text, "zh") <= -0.5, text
    for text in ("今天很开心，谢谢你", "我很喜欢这个礼物，太感谢了", "孩子考上大学了，全家都很高兴"):
        assert sentiment(text, "zh") > 0.3, text
