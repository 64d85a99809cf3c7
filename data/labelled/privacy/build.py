# ruff: noqa: SIM905  (sentence templates and word lists read best as long strings)
"""Builds ``corpus.jsonl``: sensitive values inside natural Chinese and English sentences.

    python data/labelled/privacy/build.py          # rewrites corpus.jsonl (deterministic, seed 18)

Values come from the formats' own specifications and the libraries' own example data, never from a
fake-data generator: phone numbers are ``phonenumbers.example_number_for_type`` for every region and
number type (written in international, E.164, RFC 3966 and national form, some with an extension);
IBANs follow each country's BBAN structure from python-stdnum's ``iban.dat`` with the ISO 7064 check
digits computed here; cards carry issuer prefixes (ISO/IEC 7812) and a Luhn digit; resident IDs use
county codes from jionlp's location lexicon, a birth date and the GB 11643 check character; other
national ids, passports and driver licences follow their published layouts, with check characters
computed and confirmed by python-stdnum where it has the number. Streets, estates, names and the
sentences around them are written by hand (see README.md). Each line:

    {"id", "lang", "kind", "value", "sentence", "task_necessary", "setting", "parts"?, "forms"?}

``parts`` (addresses) lists the street / number / building / unit / room pieces that must not be found
either; ``forms`` lists other spellings of the value (digits only, compact).
"""

from __future__ import annotations

import json
import random
import re
import string
from collections.abc import Callable
from datetime import date, timedelta
from importlib import resources
from pathlib import Path

import phonenumbers as pn
from phonenumbers import PhoneNumberFormat as Fmt
from phonenumbers import PhoneNumberType as PType
from phonenumbers.geocoder import _region_display_name
from stdnum import iban as std_iban
from stdnum import luhn

HERE = Path(__file__).resolve().parent
OUT = HERE / "corpus.jsonl"
rng = random.Random(18)


def pick(seq):  # type: ignore[no-untyped-def]
    return seq[rng.randrange(len(seq))]


def digits_of(s: str) -> str:
    return "".join(c for c in s if c.isdigit())


# ====================================================================== people, places (by hand)
ZH_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
ZH_GIVEN = "建国 秀英 桂兰 志强 海燕 晓明 丽娟 子涵 浩然 梓萱 宇航 欣怡 俊杰 雨桐 明轩 诗琪 嘉怡 思远 文博 佳琪 一鸣 若曦 振华 春梅 晨曦 立新 婉清 卫东 小红 国庆".split()
EN_FIRST = "Olivia Liam Emma Noah Ava Oliver Sophia Elijah Isabella Lucas Mia Mason Amelia Ethan Harper Logan Evelyn Aiden Abigail Caleb Chloe Owen Grace Wyatt Nora Julian Hazel Leo Aria Isaac Priya Arjun Mei Kenji Fatima Omar Siobhan Declan Ingrid Mateo".split()
EN_LAST = "Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Patel Okafor Murphy O'Brien Kowalski Lindqvist Tanaka Haddad Fischer Dubois".split()


def zh_name() -> str:
    return pick(ZH_SURNAMES) + pick(ZH_GIVEN)


def en_name() -> str:
    return f"{pick(EN_FIRST)} {pick(EN_LAST)}"


# ====================================================================== phone numbers
PHONE_TYPES = (
    PType.FIXED_LINE, PType.MOBILE, PType.TOLL_FREE, PType.VOIP, PType.PERSONAL_NUMBER, PType.UAN,
    PType.PAGER, PType.SHARED_COST, PType.VOICEMAIL, PType.FIXED_LINE_OR_MOBILE,
)  # fmt: skip


def phone_values() -> list[dict]:
    out = []
    for region in sorted(pn.SUPPORTED_REGIONS):
        types = list(PHONE_TYPES)
        rng.shuffle(types)
        made = 0
        for t in types:
            num = pn.example_number_for_type(region, t)
            if (
                num is None
                or made >= 2
                or not _region_display_name(region, "en")
                or not _region_display_name(region, "zh")
            ):
                continue
            made += 1
            style = rng.random()
            country_en = _region_display_name(region, "en")
            country_zh = _region_display_name(region, "zh")
            if style < 0.45:
                v = pn.format_number(num, Fmt.INTERNATIONAL)
            elif style < 0.6:
                v = pn.format_number(num, Fmt.E164)
            elif style < 0.68:
                v = pn.format_number(num, Fmt.RFC3966)
            else:
                v = pn.format_number(num, Fmt.NATIONAL)
            national = style >= 0.68
            if rng.random() < 0.12:
                v += pick((" ext. ", " x", " ext ", " extension ", "转", " 分机")) + str(rng.randint(1, 9999))
            out.append(
                {
                    "value": v,
                    "forms": [digits_of(v)],
                    "country_en": country_en,
                    "country_zh": country_zh,
                    "national": national,
                }
            )
    return out


def phone_item(p: dict, lang: str) -> tuple[str, str]:
    """(setting, template): a number in national form comes with the country it is dialled in, as people
    say it ("while I'm in Japan my number is 090-1234-5678")."""
    options = [t for t in S["phone"][lang] if "{c}" in t[1]] if p["national"] else S["phone"][lang]
    return pick(options)


def _unused() -> list[dict]:
    out: list[dict] = []
    return out


def cn_mobile() -> str:
    d = "1" + pick("3456789") + "".join(pick(string.digits) for _ in range(9))
    return pick(
        (
            d,
            f"{d[:3]} {d[3:7]} {d[7:]}",
            f"{d[:3]}-{d[3:7]}-{d[7:]}",
            f"+86 {d}",
            f"+86-{d[:3]}-{d[3:7]}-{d[7:]}",
            f"(+86) {d}",
            f"0086 {d}",
        )
    )


def us_phone() -> str:
    """A NANP number: area codes 2-9XX with a valid exchange (the example area codes of real plans)."""
    area = pick(
        (
            "212",
            "415",
            "312",
            "617",
            "206",
            "303",
            "512",
            "646",
            "702",
            "808",
            "919",
            "971",
            "503",
            "213",
            "404",
        )
    )
    exch = str(rng.randint(2, 9)) + f"{rng.randint(0, 99):02d}"
    line = f"{rng.randint(0, 9999):04d}"
    return pick(
        (
            f"{area}{exch}{line}",
            f"({area}) {exch}-{line}",
            f"{area}-{exch}-{line}",
            f"{area}.{exch}.{line}",
            f"+1 ({area}) {exch}-{line}",
            f"1-{area}-{exch}-{line}",
            f"{area} {exch} {line}",
        )
    )


# ====================================================================== IBAN (ISO 13616, BBAN layouts from iban.dat)
def iban_layouts() -> dict[str, str]:
    text = resources.files("stdnum").joinpath("iban.dat").read_text(encoding="utf-8")
    return {
        m.group(1): m.group(2) for m in re.finditer(r'^([A-Z]{2}) country="[^"]*" bban="([^"]+)"', text, re.M)
    }


def bban(layout: str) -> str:
    out = []
    for n, kind in re.findall(r"(\d+)!([nac])", layout):
        pool = {"n": string.digits, "a": string.ascii_uppercase, "c": string.ascii_uppercase + string.digits}[
            kind
        ]
        out.append("".join(pick(pool) for _ in range(int(n))))
    return "".join(out)


def iban_value(country: str, layout: str) -> str | None:
    for _ in range(400):
        body = bban(layout)
        check = std_iban.calc_check_digits(country + "00" + body)
        v = country + check + body
        if std_iban.is_valid(v):
            return pick((v, " ".join(v[i : i + 4] for i in range(0, len(v), 4))))
    return None


# ====================================================================== cards (ISO/IEC 7812 + Luhn)
CARD_ISSUERS = (  # (prefix, length, grouping, name en, name zh)
    ("4", 16, (4, 4, 4, 4), "Visa", "Visa卡"), ("4", 13, (4, 4, 5), "Visa", "Visa卡"),
    ("51", 16, (4, 4, 4, 4), "Mastercard", "万事达卡"), ("55", 16, (4, 4, 4, 4), "Mastercard", "万事达卡"),
    ("2221", 16, (4, 4, 4, 4), "Mastercard", "万事达卡"), ("2720", 16, (4, 4, 4, 4), "Mastercard", "万事达卡"),
    ("34", 15, (4, 6, 5), "Amex", "美国运通卡"), ("37", 15, (4, 6, 5), "American Express card", "运通卡"),
    ("6011", 16, (4, 4, 4, 4), "Discover card", "Discover卡"), ("65", 16, (4, 4, 4, 4), "Discover card", "Discover卡"),
    ("3528", 16, (4, 4, 4, 4), "JCB card", "JCB卡"), ("3589", 16, (4, 4, 4, 4), "JCB card", "JCB卡"),
    ("36", 14, (4, 6, 4), "Diners Club card", "大来卡"), ("62", 16, (4, 4, 4, 4), "UnionPay card", "银联卡"),
    ("622202", 19, (4, 4, 4, 4, 3), "UnionPay debit card", "工商银行卡"), ("621700", 19, (4, 4, 4, 4, 3), "UnionPay card", "建设银行卡"),
    ("622848", 19, (4, 4, 4, 4, 3), "UnionPay card", "农业银行卡"), ("6228", 19, (4, 4, 4, 4, 3), "debit card", "储蓄卡"),
    ("50", 12, (4, 4, 4), "Maestro card", "Maestro卡"), ("67", 12, (4, 4, 4), "Maestro card", "Maestro卡"),
    ("6759", 18, (4, 4, 4, 4, 2), "Maestro card", "Maestro卡"), ("2200", 16, (4, 4, 4, 4), "Mir card", "Mir卡"),
)  # fmt: skip


def luhn_number(prefix: str, length: int) -> str:
    body = prefix + "".join(pick(string.digits) for _ in range(length - len(prefix) - 1))
    return body + luhn.calc_check_digit(body)


def group(d: str, sizes: tuple[int, ...], sep: str) -> str:
    out, pos = [], 0
    for n in sizes:
        out.append(d[pos : pos + n])
        pos += n
    return sep.join(out)


# ====================================================================== PRC resident ID (GB 11643-1999)
def county_codes() -> list[str]:
    path = resources.files("jionlp").joinpath("dictionary", "china_location.txt")
    codes = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.startswith("\t\t") and not line.startswith("\t\t\t"):
                cols = line.strip().split("\t")
                if len(cols) >= 2 and re.fullmatch(r"[1-6][0-9]{5}", cols[1]) and not cols[1].endswith("00"):
                    codes.append(cols[1])
    return codes


def cn_id(codes: list[str]) -> str:
    born = date(1940, 1, 1) + timedelta(days=rng.randrange(0, 66 * 365))
    body = f"{pick(codes)}{born:%Y%m%d}{rng.randrange(0, 1000):03d}"
    w = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return body + "10X98765432"[sum(int(c) * x for c, x in zip(body, w, strict=True)) % 11]


# ====================================================================== other national ids (check characters searched, stdnum confirms)
def with_check(
    body_fn: Callable[[], str], valid: Callable[[str], bool], alphabet: str = string.digits, tail: int = 1
) -> str:
    for _ in range(2000):
        body = body_fn()
        for _ in range(60):
            cand = body + "".join(pick(alphabet) for _ in range(tail))
            if valid(cand):
                return cand
    raise RuntimeError("no valid check found")


def national_ids() -> list[dict]:
    from stdnum.br import cpf
    from stdnum.ca import sin
    from stdnum.ch import ssn as ch_ssn
    from stdnum.es import dni, nie
    from stdnum.fr import nir
    from stdnum.gb import nhs
    from stdnum.in_ import aadhaar, pan
    from stdnum.it import codicefiscale
    from stdnum.kr import rrn
    from stdnum.mx import curp
    from stdnum.nl import bsn
    from stdnum.se import personnummer

    def d(n: int) -> str:
        return "".join(pick(string.digits) for _ in range(n))

    def birth(fmt: str) -> str:
        return (date(1950, 1, 1) + timedelta(days=rng.randrange(0, 50 * 365))).strftime(fmt)

    upper = string.ascii_uppercase
    makers: list[tuple[str, str, str, Callable[[], str]]] = [
        (
            "Codice Fiscale",
            "意大利税号",
            "it",
            lambda: with_check(
                lambda: (
                    "".join(pick("BCDFGLMNPRSTVZ") for _ in range(6))
                    + birth("%y")
                    + pick("ABCDEHLMPRST")
                    + f"{rng.randint(1, 71):02d}"
                    + pick("ABCDEFGHLM")
                    + d(3)
                ),
                codicefiscale.is_valid,
                upper,
            ),
        ),
        (
            "CURP",
            "墨西哥CURP",
            "mx",
            lambda: with_check(
                lambda: (
                    pick("GHMRLP")
                    + pick("AEIOU")
                    + pick(upper)
                    + pick(upper)
                    + birth("%y%m%d")
                    + pick("HM")
                    + pick(("DF", "JC", "NL", "BC", "GT"))
                    + "".join(pick("BCDFGHJKLMNPRSTVWXZ") for _ in range(3))
                    + pick("0123456789")
                ),
                curp.is_valid,
            ),
        ),
        ("DNI", "西班牙DNI", "es", lambda: with_check(lambda: d(8), dni.is_valid, upper)),
        ("NIE", "西班牙NIE", "es", lambda: with_check(lambda: pick("XYZ") + d(7), nie.is_valid, upper)),
        (
            "PAN",
            "印度PAN号",
            "in",
            lambda: with_check(
                lambda: "".join(pick(upper) for _ in range(3)) + "P" + pick(upper) + d(4), pan.is_valid, upper
            ),
        ),
        (
            "Aadhaar number",
            "Aadhaar号码",
            "in",
            lambda: " ".join(
                re.findall("....", with_check(lambda: str(rng.randint(2, 9)) + d(10), aadhaar.is_valid))
            ),
        ),
        (
            "AHV number",
            "瑞士社保号",
            "ch",
            lambda: ch_ssn.format(with_check(lambda: "756" + d(9), ch_ssn.is_valid)),
        ),
        ("CPF", "巴西CPF", "br", lambda: cpf.format(with_check(lambda: d(9), cpf.is_valid, tail=2))),
        (
            "resident registration number",
            "韩国居民登录号",
            "kr",
            lambda: rrn.format(with_check(lambda: birth("%y%m%d") + pick("12") + d(5), rrn.is_valid)),
        ),
        (
            "NIR (numéro de sécurité sociale)",
            "法国社保号",
            "fr",
            lambda: with_check(
                lambda: pick("12") + birth("%y%m") + f"{rng.randint(1, 95):02d}" + d(3) + d(3),
                nir.is_valid,
                tail=2,
            ),
        ),
        (
            "SIN",
            "加拿大社会保险号",
            "ca",
            lambda: sin.format(with_check(lambda: pick("1245679") + d(7), sin.is_valid)),
        ),
        ("NHS number", "NHS号码", "gb", lambda: nhs.format(with_check(lambda: d(9), nhs.is_valid))),
        ("BSN", "荷兰BSN", "nl", lambda: with_check(lambda: pick("123456") + d(7), bsn.is_valid)),
        (
            "personnummer",
            "瑞典个人号码",
            "se",
            lambda: personnummer.format(
                with_check(lambda: birth("%y%m%d") + "-" + d(3), personnummer.is_valid)
            ),
        ),
        (
            "National Insurance number",
            "英国国民保险号",
            "gb",
            lambda: (
                pick(("AB", "CE", "JK", "LM", "PR", "SW", "TY", "WX"))
                + " "
                + " ".join(d(2) for _ in range(3))
                + " "
                + pick("ABCD")
            ),
        ),
        ("HKID", "香港身份证", "hk", lambda: hkid()),
        ("Taiwan ID", "台湾身份证", "tw", lambda: twid()),
        ("NRIC", "新加坡NRIC", "sg", lambda: sg_nric()),
    ]
    out = []
    for name_en, name_zh, cc, make in makers:
        for _ in range(9):
            v = make()
            out.append(
                {
                    "value": v,
                    "forms": [re.sub(r"[ .\-()]", "", v)],
                    "name_en": name_en,
                    "name_zh": name_zh,
                    "cc": cc,
                }
            )
    return out


def hkid() -> str:
    letter = pick(string.ascii_uppercase)
    digits = "".join(pick(string.digits) for _ in range(6))
    vals = [36, ord(letter) - 55] + [int(c) for c in digits]
    total = sum(x * w for x, w in zip(vals, range(9, 1, -1), strict=True))
    want = (11 - total % 11) % 11
    return f"{letter}{digits}({'A' if want == 10 else want})"


def twid() -> str:
    table = dict(zip("ABCDEFGHJKLMNPQRSTUVXYWZIO", range(10, 36), strict=True))
    letter = pick("ABCDEFGHJKLMNPQRSTUVXYWZ")
    body = pick("12") + "".join(pick(string.digits) for _ in range(7))
    n = table[letter]
    total = n // 10 + (n % 10) * 9 + sum(int(c) * w for c, w in zip(body, range(8, 0, -1), strict=True))
    return letter + body + str((10 - total % 10) % 10)


def sg_nric() -> str:
    prefix = pick("ST")
    body = "".join(pick(string.digits) for _ in range(7))
    total = sum(int(c) * w for c, w in zip(body, (2, 7, 6, 5, 4, 3, 2), strict=True)) + (
        4 if prefix == "T" else 0
    )
    return prefix + body + "JZIHGFEDCBA"[total % 11]


# ====================================================================== passports, driver licences (published layouts)
def passport() -> tuple[str, str, str]:
    """(number, country en, country zh)"""
    d = lambda n: "".join(pick(string.digits) for _ in range(n))  # noqa: E731
    u = lambda n: "".join(pick(string.ascii_uppercase) for _ in range(n))  # noqa: E731
    return pick((
        (pick("EG") + d(8), "Chinese", "中国"), ("E" + pick("ABCDEFGH") + d(7), "Chinese", "中国"),
        (d(9), "US", "美国"), (pick("ACEX") + d(8), "US", "美国"), (d(9), "UK", "英国"),
        ("C" + "".join(pick("0123456789CFGHJKLMNPRTVWXYZ") for _ in range(8)), "German", "德国"),
        (u(1) + d(7), "Indian", "印度"), (u(2) + d(6), "Canadian", "加拿大"), (u(2) + d(7), "Japanese", "日本"),
        (d(2) + u(2) + d(5), "French", "法国"), (pick("NPE") + d(7), "Australian", "澳大利亚"),
        ("M" + d(8), "Korean", "韩国"), (u(2) + d(7), "Italian", "意大利"),
    ))  # fmt: skip


DVLA_SURNAMES = (
    "MORGA",
    "SMITH",
    "JONES",
    "WILLI",
    "TAYLO",
    "BROWN",
    "DAVIE",
    "EVANS",
    "WILSO",
    "THOMA",
    "LEE99",
    "ROBER",
)


def driver_licence() -> tuple[str, str]:
    """(number, issuer) — US state layouts, the UK DVLA layout, PRC (the holder's ID number)."""
    d = lambda n: "".join(pick(string.digits) for _ in range(n))  # noqa: E731
    u = lambda n: "".join(pick(string.ascii_uppercase) for _ in range(n))  # noqa: E731
    r = rng.random()
    if r < 0.25:
        born = date(1960, 1, 1) + timedelta(days=rng.randrange(0, 40 * 365))
        month = born.month + (50 if rng.random() < 0.5 else 0)
        v = f"{pick(DVLA_SURNAMES)}{str(born.year)[2]}{month:02d}{born.day:02d}{str(born.year)[3]}{u(2)}9{u(2)}"
        return v, "UK"
    return pick((
        (u(1) + d(7), "California"), (d(9), "New York"), (u(1) + d(12), "Florida"), (u(1) + d(3) + "-" + d(3) + "-" + d(2) + "-" + d(3) + "-" + d(1), "Florida"),
        (d(8), "Texas"), (u(1) + d(11), "Illinois"), (u(1) + d(3) + "-" + d(4) + "-" + d(4), "Illinois"), ("WDL" + "".join(pick(string.ascii_uppercase + string.digits) for _ in range(9)), "Washington"),
        (d(8), "Pennsylvania"), (u(1) + d(12), "Michigan"), (u(1) + d(8), "Ontario"), (u(1) + d(4) + "-" + d(5) + "-" + d(5), "Ontario"),
        (d(12), "中国 档案编号"),
    ))  # fmt: skip


# ====================================================================== streets and estates (by hand)
ZH_ROADS = """建国路 人民路 中山路 解放路 长安街 南京东路 淮海中路 天府大道 深南大道 科技南路 学院路 新华街 幸福巷 丈八东路 星湖街 延安西路
北京南路 滨江大道 文三路 体育西路 漕溪北路 珞喻路 张江路 科苑路 世纪大道 和平路 青年路 五一路 光明街 胜利街 黄河路 长江路 东风路 朝阳北路
花园路 迎宾大道 工业园路 育才路 府前街 步行街 南大街 北环路 金融街 江汉路 中华路 太平街 解放大道 虹桥路 曲江大道 湖滨路 西湖大道 观前街
南锣鼓巷 东四十条 柳荫街 槐树巷 金鱼胡同 双井街 望京街 翠微路 阜成路 三里屯路""".split()
ZH_ESTATES = """阳光花园 锦绣家园 翠湖小区 金色家园 世纪公寓 华府新村 碧桂园 万科城市花园 绿地名苑 龙湖嘉园 保利华庭 融创公馆 枫林山庄 幸福里小区
和谐家园 明珠花园 东方雅苑 学府佳园 滨江一号 紫薇小区 丽景湾 怡景苑 南湖新村 水岸华府 金地名都 望京西园 回龙观东园 天通苑 方庄芳城园""".split()
ZH_TOWERS = "中关村大厦 恒隆广场 东部软件园 国贸中心 西溪园区 环球金融中心 科技大楼 来福士广场 万达广场 创业大厦 金茂大厦 软件产业园".split()
ZH_VILLAGE = "张家村 李庄村 王家坝村 石桥村 杨柳村 河口村 东沟村 马家湾村".split()


def zh_admin_chains() -> list[tuple[str, ...]]:
    """(province, city, county) triples from jionlp's lexicon (full names)."""
    path = resources.files("jionlp").joinpath("dictionary", "china_location.txt")
    triples, prov, city = [], "", ""
    with path.open(encoding="utf-8") as f:
        for line in f:
            depth = len(line) - len(line.lstrip("\t"))
            name = line.strip().split("\t")[0]
            if depth == 0:
                prov = name
            elif depth == 1:
                city = name
            elif depth == 2:
                triples.append((prov, city, name))
    return triples


def zh_address(triples) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    prov, city, county = pick(triples)
    head_style = rng.random()
    if head_style < 0.15:
        head = prov + (city if city != prov else "") + county
    elif head_style < 0.55:
        head = (city if city != prov else prov) + county
    elif head_style < 0.8:
        head = county
    else:
        head = ""  # no administrative name at all
    num = str(rng.randint(1, 999))
    bld, unit, room = (
        str(rng.randint(1, 30)),
        str(rng.randint(1, 6)),
        f"{rng.randint(1, 32)}{rng.randint(1, 8):02d}",
    )
    form = rng.randrange(9)
    road = pick(ZH_ROADS)
    if form == 0:
        street = f"{road}{num}号"
        v, parts = head + street, [street]
    elif form == 1:
        street = f"{road}{num}号"
        v, parts = (
            head + f"{street}院{bld}号楼{unit}单元{room}室",
            [street, f"{bld}号楼{unit}单元", f"{room}室"],
        )
    elif form == 2:
        street = f"{road}{num}号"
        tower = pick(ZH_TOWERS)
        fl = rng.randint(2, 40)
        v, parts = (
            head + f"{street}{tower}{pick('ABCD')}座{fl}层{fl}{rng.randint(1, 20):02d}室",
            [street, tower],
        )
    elif form == 3:
        est = pick(ZH_ESTATES)
        v, parts = head + f"{est}{bld}栋{unit}单元{room}室", [f"{est}{bld}栋", f"{room}室"]
    elif form == 4:
        est = pick(ZH_ESTATES)
        v, parts = head + f"{est}{bld}幢{room}", [f"{est}{bld}幢", room]
    elif form == 5:
        lane = rng.randint(1, 1200)
        street = f"{road}{lane}弄"
        v, parts = head + f"{street}{bld}号{room}室", [street, f"{bld}号{room}室"]
    elif form == 6:
        est = pick(ZH_ESTATES)
        v, parts = (
            head + f"{road}{num}号{est}{pick('一二三四')}期{bld}号楼{room}",
            [f"{road}{num}号", f"{bld}号楼{room}"],
        )
    elif form == 7:
        vil, grp = pick(ZH_VILLAGE), rng.randint(1, 12)
        v, parts = (head or county) + f"{vil}{grp}组{num}号", [f"{vil}{grp}组{num}号"]
    else:
        street = f"{road}{pick('一二三')}段{num}号"
        v, parts = head + f"{street}{bld}楼", [street]
    return v, parts


EN_STREET_NAMES = """Maple Oak Cedar Elm Pine Birch Walnut Chestnut Willow Magnolia Sycamore Juniper Hawthorn Linden Aspen
Washington Jefferson Lincoln Madison Monroe Jackson Adams Franklin Hamilton Grant Kennedy Roosevelt
Park Lake Hill River Spring Meadow Sunset Highland Ridge Valley Forest Harbor Bay Prairie Canyon Orchard
Church Mill School Market Bridge Station Railroad Union Liberty Pleasant Fairview Greenwood Riverside Lakeview
Main High King Queen Victoria Albert George Princes Baker Downing Abbey Chapel Manor Castle Oxford Cambridge
Wallaby Kangaroo Eucalyptus Wattle Banksia Bluegum Yonge Bloor Dundas Spadina""".split()
EN_ORDINALS = (
    "1st 2nd 3rd 4th 5th 6th 7th 8th 9th 10th 11th 12th 14th 21st 23rd 42nd 59th 72nd 86th 125th".split()
)
US_SUFFIXES = "Street St Avenue Ave Road Rd Boulevard Blvd Lane Ln Drive Dr Court Ct Place Pl Terrace Way Circle Cir Parkway Pkwy Trail Highway Hwy Square Loop Alley Plaza Ridge Row Run Pike Crossing Heights Point Path Walk Cove Bend".split()
UK_SUFFIXES = "Street Road Lane Close Crescent Gardens Grove Mews Avenue Way Drive Place Terrace Square Hill Rise Row Walk Parade Green".split()
AU_SUFFIXES = "Street St Road Rd Avenue Ave Parade Pde Esplanade Circuit Crescent Cres Close Highway Drive Place Court".split()
US_CITIES = (
    ("Springfield", "IL", "627"),
    ("Austin", "TX", "787"),
    ("Portland", "OR", "972"),
    ("Denver", "CO", "802"),
    ("Columbus", "OH", "432"),
    ("Raleigh", "NC", "276"),
    ("Boston", "MA", "021"),
    ("Seattle", "WA", "981"),
    ("Phoenix", "AZ", "850"),
    ("Nashville", "TN", "372"),
    ("Madison", "WI", "537"),
    ("Albany", "NY", "122"),
    ("Savannah", "GA", "314"),
    ("Boise", "ID", "837"),
)
UK_TOWNS = (
    ("London", "SW1A", "NW1", "E14", "SE10", "W1D"),
    ("Manchester", "M1", "M14"),
    ("Leeds", "LS1", "LS6"),
    ("Bristol", "BS1", "BS8"),
    ("Edinburgh", "EH1", "EH3"),
    ("Cardiff", "CF10", "CF24"),
    ("Oxford", "OX1", "OX4"),
    ("York", "YO1", "YO10"),
)
CA_CITIES = (
    ("Toronto", "ON", "M5V"),
    ("Vancouver", "BC", "V6B"),
    ("Montreal", "QC", "H2X"),
    ("Calgary", "AB", "T2P"),
    ("Ottawa", "ON", "K1P"),
    ("Halifax", "NS", "B3H"),
)
AU_CITIES = (
    ("Surry Hills", "NSW", "2010"),
    ("Fitzroy", "VIC", "3065"),
    ("Fortitude Valley", "QLD", "4006"),
    ("Fremantle", "WA", "6160"),
    ("Glenelg", "SA", "5045"),
    ("Hobart", "TAS", "7000"),
    ("Braddon", "ACT", "2612"),
)


def en_street(suffixes: list[str]) -> str:
    name = pick(EN_ORDINALS) if rng.random() < 0.12 else pick(EN_STREET_NAMES)
    if rng.random() < 0.2:
        name = pick(EN_STREET_NAMES) + " " + name
    return f"{name} {pick(suffixes)}"


def en_address() -> tuple[str, list[str], str]:
    """(address, parts, region)"""
    r = rng.random()
    num = str(rng.randint(1, 9899))
    if r < 0.4:
        street = en_street(US_SUFFIXES)
        pre = pick(("", "", "", "N ", "S ", "E ", "W "))
        line1 = f"{num} {pre}{street}"
        unit = pick(
            (
                "",
                "",
                f", Apt {rng.randint(1, 40)}{pick('ABCD')}",
                f", Suite {rng.randint(100, 990)}",
                f" #{rng.randint(1, 400)}",
                f", Unit {rng.randint(1, 30)}",
            )
        )
        city, st, zip3 = pick(US_CITIES)
        tail = pick(
            (
                "",
                f", {city}, {st} {zip3}{rng.randint(0, 99):02d}",
                f", {city}",
                f", {city} {st} {zip3}{rng.randint(0, 99):02d}-{rng.randint(1000, 9999)}",
            )
        )
        return line1 + unit + tail, [line1], "US"
    if r < 0.55:
        town, *districts = pick(UK_TOWNS)
        pc = f"{pick(districts)} {rng.randint(1, 9)}{pick('ABDEFGHJLNPQRSTUWXYZ')}{pick('ABDEFGHJLNPQRSTUWXYZ')}"
        street = en_street(UK_SUFFIXES)
        lead = pick(("", "", f"Flat {rng.randint(1, 30)}, ", f"Flat {rng.randint(1, 9)}{pick('ABC')}, "))
        line1 = f"{rng.randint(1, 240)} {street}"
        tail = pick((f", {town} {pc}", f", {town}, {pc}", f", {town}"))
        return lead + line1 + tail, [line1, pc] if pc in tail else [line1], "UK"
    if r < 0.65:
        city, prov, fsa = pick(CA_CITIES)
        pc = f"{fsa} {rng.randint(1, 9)}{pick('ABCEGHJKLMNPRSTVWXYZ')}{rng.randint(0, 9)}"
        line1 = f"{num} {en_street(US_SUFFIXES)}"
        return (
            line1
            + pick(
                (
                    f", {city}, {prov} {pc}",
                    f", {city} {prov} {pc}",
                    f", Unit {rng.randint(1, 40)}, {city}, {prov}",
                )
            ),
            [line1],
            "CA",
        )
    if r < 0.77:
        city, st, pc = pick(AU_CITIES)
        line1 = f"{rng.randint(1, 300)} {en_street(AU_SUFFIXES)}"
        lead = pick(("", f"Unit {rng.randint(1, 40)}, ", f"{rng.randint(1, 20)}/"))
        return lead + line1 + f", {city} {st} {pc}", [line1], "AU"
    if r < 0.88:
        kind = rng.random()
        if kind < 0.4:
            v = f"PSC {rng.randint(1000, 9999)}, Box {rng.randint(1000, 99999)}, APO AE 09{rng.randint(0, 999):03d}"
        elif kind < 0.7:
            v = f"Unit {rng.randint(1000, 9999)} Box {rng.randint(100, 9999)}, DPO AP 96{rng.randint(200, 699):03d}"
        else:
            v = f"CMR {rng.randint(400, 499)} Box {rng.randint(1000, 9999)}, APO AE 09{rng.randint(0, 999):03d}"
        return v, [v.split(",")[0]], "military"
    city, st, zip3 = pick(US_CITIES)
    box = f"{pick(('PO Box', 'P.O. Box', 'Post Office Box'))} {rng.randint(1, 99999)}"
    return box + pick(("", f", {city}, {st} {zip3}{rng.randint(0, 99):02d}")), [box], "PO box"


# ====================================================================== emails, secrets, medical (by hand)
EMAIL_DOMAINS = "gmail.com 163.com qq.com outlook.com yahoo.co.jp hotmail.co.uk proton.me icloud.com 126.com sina.com company.cn univ.edu.au mail.example.de".split()


def email() -> str:
    f, last = pick(EN_FIRST).lower(), pick(EN_LAST).lower().replace("'", "")
    user = pick(
        (
            f"{f}.{last}",
            f"{f}{rng.randint(1, 99)}",
            f"{f[0]}{last}",
            f"{last}_{f}",
            f"{f}+{pick(('shop', 'bank', 'hr'))}",
            f"{f}.{last}{rng.randint(1980, 2005)}",
        )
    )
    return f"{user}@{pick(EMAIL_DOMAINS)}"


def password() -> str:
    words = "sunflower dragon Tiger maple Rainbow coffee panda Winter falcon mango".split()
    return pick((
        pick(words) + str(rng.randint(10, 2099)) + pick("!@#$%&*"), "".join(pick(string.ascii_letters + string.digits) for _ in range(rng.randint(8, 14))),
        pick(words).capitalize() + pick("-_.") + pick(words) + str(rng.randint(1, 99)), str(rng.randint(100000, 999999)), pick(words) + pick(words),
    ))  # fmt: skip


MED_EN_CUE_TERMS = "celiac sprue|Sjogren's syndrome|sarcoidosis|myasthenia gravis|Addison's disease|Ménière's disease|Raynaud's phenomenon|polymyositis|Cushing's syndrome|hemochromatosis".split(
    "|"
)
MED_ZH_CUE_TERMS = (
    "干燥综合征 结节病 重症肌无力 艾迪生病 梅尼埃病 雷诺综合征 库欣综合征 血色病 桥本病 间质性肺病".split()
)


# ====================================================================== sentences (by hand), per kind, with a setting
S: dict[str, dict[str, list[tuple[str, str]]]] = {
    "phone": {
        "zh": [
            ("customer service", "客服您好，我的联系电话是{v}，麻烦回电。"),
            ("travel", "酒店前台，我在{c}的手机号是{v}，入住有问题打给我。"),
            ("HR", "入职登记表上紧急联系人电话填{v}。"),
            ("banking", "银行预留手机号改成{v}了，记一下。"),
            ("shopping", "商场导购加了我的电话{v}，说有活动会告诉我。"),
            ("medical", "医院说检查结果出来会打{v}通知我。"),
            ("travel", "我在{c}用的号码是{v}，出差这周都能找到我。"),
            ("HR", "新同事{n}的座机是{v}。"),
            ("customer service", "{c}分公司的客服电话是{v}。"),
            ("medical", "我在{c}看病的诊所电话：{v}。"),
        ],
        "en": [
            ("customer service", "Please call me back at {v} about my refund."),
            ("travel", "While I'm in {c} my number is {v}."),
            ("HR", "My emergency contact, {n}, can be reached on {v}."),
            ("banking", "Update the phone on my account to {v}."),
            ("shopping", "The shop assistant wrote down my number, {v}, at the till."),
            ("medical", "The clinic will text me at {v} when the results are in."),
            ("travel", "Our guide in {c} gave me her mobile, {v}, in case we get lost."),
            ("HR", "You can reach the recruiter at {v} until Friday."),
            ("customer service", "The {c} support line is {v}."),
            ("HR", "Our {c} office phone is {v}."),
        ],
    },
    "iban": {
        "zh": [
            ("banking", "工资请打到我的IBAN账户{v}。"),
            ("shopping", "退款转到这个IBAN：{v}，户名{n}。"),
            ("travel", "房东让我把押金转到{v}。"),
            ("HR", "财务那边登记的收款账号是{v}。"),
        ],
        "en": [
            ("banking", "My IBAN is {v}, please send the salary there."),
            ("shopping", "Refund it to {v}, account holder {n}."),
            ("travel", "The landlord asked for the deposit at IBAN {v}."),
            ("HR", "Payroll has my account as {v} now."),
        ],
    },
    "bank_card": {
        "zh": [
            ("banking", "我的{c}卡号是{v}，下个月到期。"),
            ("shopping", "用这张卡付款：{v}。"),
            ("customer service", "客服问我卡号，我说的是{v}。"),
            ("travel", "订酒店用的{c}：{v}。"),
        ],
        "en": [
            ("banking", "My {c} number is {v} and it expires next spring."),
            ("shopping", "Charge it to my {c}, {v}."),
            ("customer service", "I read the agent my card, {v}, over the phone."),
            ("travel", "The hotel has my {c} {v} on file."),
        ],
    },
    "cn_id": {
        "zh": [
            ("travel", "帮我订高铁票，身份证号{v}。"),
            ("HR", "入职材料里的身份证号码是{v}。"),
            ("banking", "开户时填的身份证是{v}。"),
            ("medical", "挂号要身份证，我的是{v}。"),
        ],
        "en": [
            ("travel", "For the train ticket my resident ID is {v}."),
            ("HR", "My Chinese ID card number is {v}, for the contract."),
            ("banking", "The bank has my ID number as {v}."),
        ],
    },
    "national_id": {
        "zh": [
            ("HR", "我的{c}是{v}，人事要登记。"),
            ("banking", "开户时他们要了我的{c}：{v}。"),
            ("travel", "签证表上{c}一栏填了{v}。"),
        ],
        "en": [
            ("HR", "HR needs my {c}: {v}."),
            ("banking", "My {c} is {v}, the bank asked for it."),
            ("travel", "I put my {c} {v} on the visa form."),
        ],
    },
    "ssn": {
        "zh": [("HR", "我的社会安全号是{v}，报税要用。"), ("banking", "贷款申请里SSN填的是{v}。")],
        "en": [
            ("HR", "My SSN is {v} for the W-4."),
            ("banking", "The loan form asks for my social security number: {v}."),
            ("HR", "Payroll has my SSN as {v}."),
            ("medical", "The insurer wants my social security number, {v}."),
        ],
    },
    "passport": {
        "zh": [
            ("travel", "我的{c}护照号是{v}，下个月去日本。"),
            ("travel", "订机票用护照号码{v}。"),
            ("HR", "出差报备要护照号，我的是{v}。"),
        ],
        "en": [
            ("travel", "My {c} passport number is {v}, valid until 2031."),
            ("travel", "Book the flight with passport {v}."),
            ("HR", "For the work visa: passport no. {v}."),
        ],
    },
    "driver_license": {
        "zh": [
            ("travel", "租车需要驾驶证号，我的是{v}。"),
            ("HR", "公司车队登记了我的驾照号码：{v}。"),
            ("customer service", "保险公司核对驾驶证号{v}。"),
        ],
        "en": [
            ("travel", "For the rental, my {c} driver's license number is {v}."),
            ("HR", "Fleet needs my driving licence number: {v}."),
            ("customer service", "The insurer confirmed my DL# {v}."),
        ],
    },
    "email": {
        "zh": [
            ("shopping", "发票发到我邮箱{v}。"),
            ("HR", "面试通知请发{v}。"),
            ("customer service", "我的注册邮箱是{v}。"),
            ("banking", "对账单寄到{v}吧。"),
        ],
        "en": [
            ("shopping", "Send the receipt to {v}."),
            ("HR", "My personal email is {v}."),
            ("customer service", "The account is under {v}."),
            ("banking", "Statements go to {v} now."),
        ],
    },
    "address": {
        "zh": [
            ("shopping", "我家地址是{v}，在养一只橘猫。"),
            ("HR", "员工档案里的住址写{v}。"),
            ("medical", "出院小结上的住址是{v}。"),
            ("customer service", "维修师傅上门的地址：{v}。"),
            ("travel", "我们民宿在{v}，离地铁很近。"),
            ("banking", "银行信用卡账单地址是{v}。"),
        ],
        "en": [
            ("shopping", "My home address is {v}."),
            ("HR", "The offer letter went to {v}."),
            ("medical", "The clinic has me at {v}."),
            ("customer service", "The technician should come to {v}."),
            ("travel", "Our rental is at {v}, near the beach."),
            ("banking", "The bank still mails statements to {v}."),
        ],
    },
    "diagnosis": {
        "zh": [
            ("medical", "我去年确诊了{v}，一直在复查。"),
            ("medical", "医生说我有{v}，让我少熬夜。"),
            ("HR", "请假条上写的是{v}复诊。"),
            ("medical", "我被诊断为{v}，周三复查。"),
            ("medical", "我爸有{v}，每个月都要去医院。"),
        ],
        "en": [
            ("medical", "I was diagnosed with {v} last year."),
            ("medical", "Dad has {v}, so we visit every week."),
            ("HR", "My sick note mentions {v}."),
            ("medical", "She was diagnosed with {v} in May."),
            ("customer service", "The insurer asked whether I have {v}."),
        ],
    },
    "drug": {
        "zh": [
            ("medical", "我妈最近在吃{v}。"),
            ("medical", "医生给我开了{v}，一天两次。"),
            ("customer service", "药房说{v}要处方才能买。"),
            ("medical", "我每天早上服用{v}。"),
        ],
        "en": [
            ("medical", "My doctor put me on {v}."),
            ("medical", "I take {v} every morning."),
            ("customer service", "The pharmacy needs a prescription for my {v} refill."),
            ("medical", "He was prescribed {v} after the surgery."),
        ],
    },
    "password": {
        "zh": [
            ("customer service", "家里WiFi密码：{v}。"),
            ("HR", "公司邮箱的口令改成了{v}。"),
            ("shopping", "我的淘宝密码是{v}。"),
        ],
        "en": [
            ("customer service", "The wifi password is {v}."),
            ("HR", "My new VPN password: {v}."),
            ("shopping", "My password for the store account is {v}."),
        ],
    },
    "pin": {
        "zh": [
            ("banking", "银行卡密码是{v}，别告诉别人。"),
            ("banking", "支付密码{v}。"),
            ("shopping", "验证码是{v}，五分钟内有效。"),
            ("customer service", "门禁密码{v}。"),
        ],
        "en": [
            ("banking", "My PIN is {v}."),
            ("shopping", "The verification code is {v}."),
            ("banking", "Card PIN {v}, don't share it."),
            ("customer service", "The door code is {v}."),
        ],
    },
}
NECESSARY: dict[str, dict[str, list[str]]] = {
    "address": {
        "zh": [
            "以后下单都寄这个地址：{v}，收件人{n}。",
            "快递都送到{v}，收件人写{n}。",
            "记住我的收货地址：{v}，收件人{n}。",
            "以后外卖送到{v}。",
        ],
        "en": [
            "Ship everything to {v}, attention {n}.",
            "From now on deliver my orders to {v} (for {n}).",
            "Please send packages to {v}, addressed to {n}.",
            "Use {v} as my shipping address from now on.",
        ],
    },
    "phone": {
        "zh": ["以后下单收件电话留{v}，收件人{n}。", "快递员联系我就打{v}。"],
        "en": ["Ship my orders with contact phone {v}, for {n}.", "For deliveries call {v} and ask for {n}."],
    },
    "email": {
        "zh": ["记住我的邮箱{v}，以后用于接收发货通知。"],
        "en": ["Remember my email {v} for order notifications."],
    },
}


def main() -> None:
    items: list[dict] = []

    def add(
        kind: str,
        lang: str,
        value: str,
        forms: list[str] | None = None,
        parts: list[str] | None = None,
        ctx: str = "",
        necessary_ok: bool = False,
        template: str = "",
        chosen: tuple[str, str] | None = None,
    ) -> None:
        necessary = necessary_ok and kind in NECESSARY and rng.random() < 0.35
        if necessary:
            setting = "shopping"
            sentence = pick(NECESSARY[kind][lang]).format(v=value, n=zh_name() if lang == "zh" else en_name())
        else:
            setting, tpl = chosen or pick(S[template or kind][lang])
            sentence = tpl.format(v=value, c=ctx, n=zh_name() if lang == "zh" else en_name())
        item = {
            "id": f"p{len(items):05d}",
            "lang": lang,
            "kind": kind,
            "value": value,
            "sentence": sentence,
            "task_necessary": necessary,
            "setting": setting,
        }
        forms = [f for f in dict.fromkeys(forms or []) if f and f != value]
        if forms:
            item["forms"] = forms
        if parts:
            item["parts"] = [p for p in dict.fromkeys(parts) if p]
        items.append(item)

    for p in phone_values():
        lang = "zh" if rng.random() < 0.4 else "en"
        add(
            "phone",
            lang,
            p["value"],
            p["forms"],
            ctx=p["country_zh"] if lang == "zh" else p["country_en"],
            necessary_ok=not p["national"],
            chosen=phone_item(p, lang),
        )
    for _ in range(60):
        v = cn_mobile()
        add("phone", "zh", v, [digits_of(v)], ctx="国内", necessary_ok=True)
    for _ in range(60):
        v = us_phone()
        add("phone", "en", v, [digits_of(v)], ctx="the US", necessary_ok=True)
    layouts = iban_layouts()
    for country, layout in sorted(layouts.items()):
        for _ in range(2):
            v = iban_value(country, layout)
            if v:
                add("iban", pick(("zh", "en", "en")), v, [v.replace(" ", "")])
    for _ in range(200):
        prefix, length, sizes, name_en, name_zh = pick(CARD_ISSUERS)
        d = luhn_number(prefix, length)
        v = pick((d, group(d, sizes, " "), group(d, sizes, "-")))
        lang = pick(("zh", "en"))
        add("bank_card", lang, v, [d], ctx=name_zh.removesuffix("卡") if lang == "zh" else name_en)
    codes = county_codes()
    for _ in range(100):
        add("cn_id", pick(("zh", "zh", "en")), cn_id(codes))
    for n in national_ids():
        lang = pick(("zh", "en"))
        add("national_id", lang, n["value"], n["forms"], ctx=n["name_zh"] if lang == "zh" else n["name_en"])
    for _ in range(80):
        area = pick([a for a in range(1, 900) if a != 666])
        d = f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"
        add(
            "ssn",
            pick(("en", "en", "zh")),
            pick((f"{d[:3]}-{d[3:5]}-{d[5:]}", f"{d[:3]} {d[3:5]} {d[5:]}")),
            [d],
        )
    for _ in range(120):
        v, c_en, c_zh = passport()
        lang = pick(("zh", "en"))
        add("passport", lang, v, ctx=c_zh if lang == "zh" else c_en)
    for _ in range(120):
        v, issuer = driver_licence()
        lang = "zh" if issuer.startswith("中国") else pick(("en", "en", "zh"))
        add("driver_license", lang, v, [re.sub(r"[ -]", "", v)], ctx=issuer)
    for _ in range(120):
        add("email", pick(("zh", "en")), email(), necessary_ok=True)
    triples = zh_admin_chains()
    for _ in range(380):
        v, parts = zh_address(triples)
        add("address", "zh", v, parts=parts, necessary_ok=True)
    for _ in range(380):
        v, parts, _region = en_address()
        add("address", "en", v, parts=parts, necessary_ok=True)
    from memscribe.write.pii.medical import lexicon

    lex = lexicon()
    for lang, pools in (
        ("zh", (lex["zh_diagnoses"], lex["zh_drugs"], MED_ZH_CUE_TERMS)),
        ("en", (lex["en_diagnoses"], lex["en_drugs"], MED_EN_CUE_TERMS)),
    ):
        for _ in range(110):
            pool = pick(pools)
            term = pick(pool)
            if pool is pools[2]:  # not in the lexicon: only a diagnosis cue names it
                tpl = "我被诊断为{v}，周三复查。" if lang == "zh" else "I was diagnosed with {v} last year."
                items.append(
                    {
                        "id": f"p{len(items):05d}",
                        "lang": lang,
                        "kind": "medical",
                        "value": term,
                        "sentence": tpl.format(v=term),
                        "task_necessary": False,
                        "setting": "medical",
                    }
                )
            else:
                add("medical", lang, term, template="diagnosis" if pool is pools[0] else "drug")
    for _ in range(100):
        add("secret", pick(("zh", "en")), password(), template="password")
    for _ in range(80):
        add(
            "secret",
            pick(("zh", "en")),
            str(rng.randint(0, 10 ** pick((4, 6)) - 1)).zfill(pick((4, 6))),
            template="pin",
        )

    seen: set[str] = set()
    unique = []
    for it in items:
        if it["sentence"] not in seen:
            seen.add(it["sentence"])
            unique.append(it)
    for i, it in enumerate(unique):
        it["id"] = f"p{i:05d}"
    OUT.write_text("".join(json.dumps(it, ensure_ascii=False) + "\n" for it in unique), encoding="utf-8")
    from collections import Counter

    print(len(unique), dict(Counter(it["kind"] for it in unique)))


if __name__ == "__main__":
    main()
