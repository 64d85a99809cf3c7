"""Chinese street-level addresses inside a sentence.

An address is an optional chain of administrative names (省 / 市 / 区 / 县 / 镇 / 街道 …) followed by a
street-level part, then any number of building parts:

* a road with a house number: 建国路88号, 漕溪北路595弄, 中山路一段100巷, 人民路88-3, 张家村3组15号;
* or a named estate / building: 阳光花园, 望京西园三区, 国贸大厦, 88号院;
* building parts: 3号楼 / 5栋 / 2幢 / B座 / 2单元 / 12层 / 1201室 / 东区 / 二期, and a bare room number
  after them (2单元1201).

A district or city named alone (朝阳区, 上海) is not an address, nor is a venue's floor (国贸大厦3层开会),
a seat (B区12排5号) or a date (逛街3号下午). Administrative names come from jionlp's location lexicon
(provinces, cities, counties with their short names), so "明天上海市…" starts at 上海.
"""

from __future__ import annotations

import importlib.util
import re
import zipfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from memscribe.write.pii.finding import PiiFinding, before, finding

__all__ = ["find_address_zh"]


def _cjk_class_without(stop: str) -> str:
    """A character class of CJK ideographs minus ``stop`` (function words that never start a place name)."""
    parts, lo = [], 0x4E00
    for cp in sorted({ord(c) for c in stop}):
        if cp > lo:
            parts.append(f"{chr(lo)}-{chr(cp - 1)}")
        lo = cp + 1
    parts.append(f"{chr(lo)}-\u9fff")
    return "[" + "".join(parts) + "]"


_N = _cjk_class_without(
    "的了在到是址住寄送往于从去搬我你他她它们请把给这那个就也还要想让被对吗呢吧啊及或与跟是为址"
)
_D = "[0-9０-９]"
_ZD = "[一二三四五六七八九十百零〇两]"
_NUM = rf"(?:{_D}{{1,5}}|{_ZD}{{1,4}})"
_ROAD_SUFFIX = "(?:大街|大道|胡同|路|街|巷|道|里|弄|村|屯|组|(?<=[一二三四五六七八九十])条)"
_SECTION = rf"(?:(?:{_ZD}{{1,2}}|{_D}{{1,2}}|[东西南北中])段)?"
_ADMIN_SUFFIX = "(?:省|自治区|特别行政区|市|自治州|地区|盟|新区|区|县|旗|镇|乡|街道)"
_ESTATE_SUFFIX = (
    "(?:小区|花园|公寓|大厦|家园|新村|苑|广场|大楼|中心|园区|园|院|城|府|湾|庭|居|坊|公馆|山庄|别墅|社区|宿舍|大院"
    "|写字楼|商城|华庭|雅居|名苑|佳园|嘉园|新城|国际|大楼|楼宇|科技园|产业园|工业园|村)"
)
_RESIDENTIAL = "(?:小区|花园|公寓|家园|新村|苑|华庭|公馆|山庄|别墅|名苑|佳园|嘉园|社区)"
_PART_SUFFIX = "(?:号楼|号院|号房|栋|幢|座|单元|楼|层|室|号|户|区|期|门|组|排|弄|巷|号铺|铺|格)"
_PART = rf"(?:(?:[A-Za-z]{{0,2}}{_D}{{1,5}}[A-Za-z]?|[A-Za-z]|{_ZD}{{1,3}}|[东西南北中])(?:[-－]{_D}{{1,5}})*{_PART_SUFFIX})"
_ROOM = rf"(?:(?<=[楼层])[A-Za-z](?![A-Za-z])|(?<=[栋幢座元层楼区期号心厦寓苑园府庭城场])(?:[-－]?{_D}{{3,5}}|{_D}{{1,2}}[-－]{_D}{{3,4}})(?!{_D}|元|块|年|月|日|号|点|分|个|人|次|%|米|平|天|岁|斤|公斤|公里|万))"
_GAP = r"[ ，,、]?"
_UNIT_PART = rf"(?:[A-Za-z]{{0,2}}{_D}{{1,5}}[A-Za-z]?|[A-Za-z]|{_ZD}{{1,3}})(?:号楼|栋|幢|座|单元|期)"
# an estate or building name: with its suffix (阳光花园), or any name right before a building part (金地名都三期)
_ESTATE_NAME = rf"(?:{_N}{{0,10}}?{_ESTATE_SUFFIX}|{_N}{{2,8}}?(?={_UNIT_PART}))"
_TAIL = rf"(?:{_GAP}(?:{_PART}|{_ROOM}|(?<=号)院|{_ESTATE_NAME}))*"

_ROAD_NUM = re.compile(
    rf"(?P<road>{_N}{{1,24}}?{_ROAD_SUFFIX}{_SECTION})(?P<num>{_NUM}(?:[-－]{_D}{{1,4}})?)(?P<hao>[号弄巷组队社]?)(?P<tail>{_TAIL})"
)
_ESTATE = re.compile(
    rf"(?P<est>{_N}{{2,24}}?(?:{_ESTATE_SUFFIX}|(?={_UNIT_PART})))(?P<tail>(?:{_GAP}(?:{_PART}|{_ROOM}|{_ESTATE_NAME}))+)"
)
_DETAIL_CHAIN = re.compile(rf"(?<![0-9A-Za-z]){_PART}(?:{_GAP}(?:{_PART}|{_ROOM}))+")
_CUE = re.compile(r"住在|住址|地址|家在|家住|寄到|送到|寄往|送往|收货|收件|搬到|搬去|落户|户籍|籍贯是|住的是")
_CUED_PLACE = re.compile(
    rf"(?:[^，。,.!?！？\n]{{0,4}}?[在到往去是为：:][了]?[ ]?)?(?P<place>{_N}{{2,24}}(?:{_ROAD_SUFFIX}{_SECTION}|{_RESIDENTIAL}))"
)
_DATEISH_NEXT = frozenset("上下晚早中前后之那见去来回开出当午要的还就")
_NOT_ROAD = re.compile(
    r"(?:(?<![一二三四五六七八九十])一路|这条路|上路|走路|马路|公路|铁路|道路|出路|思路|套路|网路|电路|线路|路路|小路|大路|高速路|街道|知道|频道|味道|渠道|通道|轨道|跑道|车道|管道|隧道|一道|难道|顺道|赤道|报道|不知道|城里|这里|那里|哪里|心里|家里|夜里|手里|公里|村里|屋里|组里|里里)$"
)
_ROOMISH = re.compile(r"室|户|单元|号楼|栋|幢")


@cache
def _admin_names() -> tuple[frozenset[str], int]:
    """Provinces, cities and counties (full and short names) from jionlp's china_location lexicon."""
    # find_spec locates the package without importing it (jionlp's import prints banners and loads models)
    spec = importlib.util.find_spec("jionlp")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("jionlp (its china_location lexicon) is not installed")
    folder = Path(next(iter(spec.submodule_search_locations)), "dictionary")
    names: set[str] = set()
    for line in _lexicon_lines(folder):
        depth = len(line) - len(line.lstrip("\t"))
        if depth > 2:
            continue
        cols = line.strip().split("\t")
        if cols and cols[0]:
            names.add(cols[0])
            if len(cols) >= 3 and len(cols[2]) >= 2 and depth <= 1:
                names.add(cols[2])
    return frozenset(names), max(map(len, names))


def _lexicon_lines(folder: Path) -> list[str]:
    """The lines of china_location.txt. The wheel ships it zipped and jionlp unpacks it on its first import,
    so a fresh install has only the zip: read it from there (never write into site-packages)."""
    text_file = folder / "china_location.txt"
    if text_file.is_file():
        return text_file.read_text(encoding="utf-8").splitlines()
    with zipfile.ZipFile(folder / "china_location.zip") as archive:
        return archive.read("china_location.txt").decode("utf-8").splitlines()


def _admin_start(text: str, start: int, core: int) -> int:
    """Where the address really starts inside text[start:core]: at the first known administrative name,
    or, with none, at ``start`` ("明天上海市浦东新区…" starts at 上海市)."""
    names, longest = _admin_names()
    for i in range(start, core):
        for n in range(min(longest, core - i), 1, -1):
            if text[i : i + n] in names:
                return i
    return start


_TRAILING_SUFFIX = re.compile(f"(?:{_ROAD_SUFFIX}{_SECTION}|{_ESTATE_SUFFIX})$")


def _strip_admin(name: str) -> str:
    """A road or estate name without the administrative names in front of it; a name is only stripped
    when at least two characters of the road's own name remain ("中山北路" keeps 中山, a city's short name)."""
    names, longest = _admin_names()

    def keeps_a_name(rest: str) -> bool:
        m = _TRAILING_SUFFIX.search(rest)
        return len(rest) - (len(m.group()) if m else 0) >= 2

    i = 0
    while i < len(name):
        for n in range(min(longest, len(name) - i), 1, -1):
            if name[i : i + n] in names and keeps_a_name(name[i + n :]):
                i += n
                break
        else:
            m = re.match(f"{_N}{{2,5}}?(?:省|自治区|市|新区|区|县|镇|乡|街道)", name[i:])
            if m and keeps_a_name(name[i + m.end() :]):
                i += m.end()
                continue
            break
    return name[i:]


def _extend_left(text: str, s: int) -> int:
    """Move ``s`` back over administrative names that end at it or run through it ("那坡县", whose 那 is
    also a function word; "延边朝鲜族自治州图们市")."""
    names, longest = _admin_names()
    moved = True
    while moved:
        moved = False
        for n in range(min(longest, s), 1, -1):
            for k in range(n, 0, -1):  # a name text[s-k : s-k+n] that starts before s and reaches it
                if s - k + n >= s and text[s - k : s - k + n] in names:
                    s, moved = s - k, True
                    break
            if moved:
                break
    return s


def _has_admin(whole: str, bare: str) -> bool:
    return len(bare) < len(whole)


def _trimmed(text: str, s: int, e: int) -> tuple[int, int]:
    while e > s and text[e - 1] in " ，,、":
        e -= 1
    return s, e


def find_address_zh(text: str) -> Iterator[PiiFinding]:
    if not any("\u4e00" <= c <= "\u9fff" for c in text):
        return
    # a road with a number
    for m in _ROAD_NUM.finditer(text):
        road = m.group("road")
        bare = _strip_admin(road)
        admin = _has_admin(road, bare)
        if _NOT_ROAD.search(bare) or len(bare) < 2:
            continue
        num, hao, tail = m.group("num"), m.group("hao"), m.group("tail")
        nxt = text[m.end() : m.end() + 1]
        if not hao and not tail:
            # "人民路88" with no 号: only after administrative names or an address cue, never an amount
            if not (admin or _CUE.search(before(text, m.start(), 12))) or re.match(r"[元块米号路%]", nxt):
                continue
            if not num.isdigit() or len(num) < 2:
                continue
        if not admin and not tail and hao:
            # a bare "<road><n>号": reject date look-alikes such as "逛街3号下午"
            if len(bare) < 3 and not _CUE.search(before(text, m.start(), 12)):
                continue
            if num.isdigit() and int(num) <= 31 and (nxt in _DATEISH_NEXT or bare.endswith("街")):
                continue
        s = (
            _admin_start(text, m.start(), m.start("road") + len(road) - len(bare))
            if admin
            else m.start() + len(road) - len(bare)
        )
        yield finding(
            "address", text, *_trimmed(text, _extend_left(text, s), m.end()), 0.85 if admin else 0.75
        )
    # a named estate or building with building parts
    for m in _ESTATE.finditer(text):
        est = m.group("est")
        bare = _strip_admin(est)
        admin = _has_admin(est, bare)
        parts = re.findall(_PART, m.group("tail"))
        if not admin and len(parts) < 2 and not _ROOMISH.search(m.group("tail")):
            continue  # "国贸大厦3层" is where a meeting is, not where someone lives
        s = (
            _admin_start(text, m.start(), m.start() + len(est) - len(bare))
            if admin
            else m.start() + len(est) - len(bare)
        )
        yield finding("address", text, *_trimmed(text, _extend_left(text, s), m.end()), 0.8 if admin else 0.7)
    # building parts alone: "3号楼2单元1201室", "5栋1802"
    for m in _DETAIL_CHAIN.finditer(text):
        if (
            _ROOMISH.search(m.group())
            and len(re.findall(_PART, m.group())) + bool(re.search(_ROOM, m.group())) >= 2
        ):
            yield finding("address", text, *_trimmed(text, m.start(), m.end()), 0.7)
    # after an address cue, a street or a residential estate without a number: "我家住在朝阳区建国路"
    for cue in _CUE.finditer(text):
        m = _CUED_PLACE.match(text, cue.end())
        if not m:
            continue
        place = m.group("place")
        bare = _strip_admin(place)
        residential = re.search(f"{_RESIDENTIAL}$", bare) is not None
        if _NOT_ROAD.search(bare) or (
            not residential and re.fullmatch(f"(?:{_N}{{1,8}}?{_ADMIN_SUFFIX})+", place)
        ):
            continue  # "住在北京市", "家在朝阳区": a city or a district alone
        is_road = re.search(f"{_ROAD_SUFFIX}{_SECTION}$", bare) is not None
        if (is_road and len(bare) >= 3) or (residential and len(bare) >= 3):
            ps = m.start("place")
            s = _admin_start(text, ps, ps + len(place) - len(bare))
            yield finding("address", text, _extend_left(text, s), m.end(), 0.65)
