# ruff: noqa: SIM905  (word lists read best as one string)
"""A deterministic corpus of Chinese and English sensitive values inside natural messages (for tests).

Every value is synthetic but well-formed the way the privacy detectors (``memscribe.write.privacy``) define
it: resident ID numbers carry a valid region, birth date and checksum; bank cards pass Luhn; SSNs avoid
the never-issued ranges; phones, emails, passports, street addresses, API keys and passwords, medical
conditions and drugs look like the real ones. Each value is embedded in a message template next to
ordinary content (so the message itself is often worth remembering), and some messages ask for the value
to be kept for a task ("以后下单都寄这个地址：…", "ship everything to …"): those are ``necessary`` and
belong in the vault.

    from memscribe.testing.pii_corpus import generate
    for s in generate(1000, seed=7):
        s.kind, s.value, s.text, s.necessary, s.variants

The same ``(n, seed)`` always gives the same corpus.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from datetime import date, timedelta

__all__ = ["PiiSample", "cn_resident_id", "generate", "luhn_card"]


@dataclass(frozen=True, slots=True)
class PiiSample:
    kind: str  # the detector kind: cn_id, bank_card, phone, email, ssn, passport, address, medical, secret
    value: str  # the sensitive value exactly as it appears in ``text``
    text: str  # the message carrying it
    lang: str  # "zh" or "en"
    necessary: bool  # the message asks to keep the value for a task: it belongs in the vault
    variants: tuple[str, ...] = ()  # other spellings that must not appear either (digits only, ...)

    @property
    def forbidden(self) -> tuple[str, ...]:
        """Every form of the value that must never be found at rest."""
        return tuple(dict.fromkeys((self.value, *self.variants)))


# ---------------------------------------------------------------- checksummed numbers
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_REGIONS = (
    "110105 110108 120101 130102 140105 210102 220102 230103 310104 310115 320106 320583 330106 330203 "
    "340104 350203 360102 370202 410105 420106 430104 440106 440305 450103 500103 510107 520102 530102 "
    "610113 620102 650102"
).split()


def cn_resident_id(rng: random.Random) -> str:
    """An 18-character resident ID: a real region code, a birth date 1950-2005, sequence, ISO 7064 check."""
    born = date(1950, 1, 1) + timedelta(days=rng.randrange(0, 55 * 365))
    body = f"{rng.choice(_REGIONS)}{born:%Y%m%d}{rng.randrange(0, 1000):03d}"
    total = sum(int(c) * w for c, w in zip(body, _ID_WEIGHTS, strict=True))
    return body + "10X98765432"[total % 11]


def _luhn_digit(body: str) -> str:
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c)
        if i % 2 == 0:  # these become the odd positions once the check digit is appended
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str((10 - total % 10) % 10)


def luhn_card(rng: random.Random, prefix: str, length: int) -> str:
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    return body + _luhn_digit(body)


_CARD_KINDS = (  # (prefix, length, grouping)
    ("622202", 19, (4, 4, 4, 4, 3)),  # UnionPay debit (ICBC)
    ("621700", 19, (4, 4, 4, 4, 3)),
    ("622848", 19, (4, 4, 4, 4, 3)),
    ("625", 16, (4, 4, 4, 4)),
    ("4", 16, (4, 4, 4, 4)),  # Visa
    ("51", 16, (4, 4, 4, 4)),  # Mastercard
    ("55", 16, (4, 4, 4, 4)),
    ("37", 15, (4, 6, 5)),  # Amex
    ("6011", 16, (4, 4, 4, 4)),  # Discover
)


def _group(digits: str, sizes: tuple[int, ...], sep: str) -> str:
    out, pos = [], 0
    for n in sizes:
        out.append(digits[pos : pos + n])
        pos += n
    return sep.join(out)


def _digits(s: str) -> str:
    return "".join(c for c in s if c.isdigit() or c in "Xx")


# ---------------------------------------------------------------- names and places
_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
)
_GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍红鹏飞宇浩然思雨欣怡子轩梓涵一诺"
_FIRST_EN = (
    "James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan "
    "Joseph Jessica Thomas Sarah Charles Karen Daniel Nancy Matthew Lisa Anthony Betty Mark Sandra"
).split()
_LAST_EN = (
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez "
    "Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark"
).split()
_ZH_CITIES = (  # (city, districts)
    ("北京市", ("朝阳区", "海淀区", "东城区", "西城区", "丰台区")),
    ("上海市", ("浦东新区", "徐汇区", "静安区", "黄浦区", "长宁区")),
    ("广州市", ("天河区", "越秀区", "海珠区", "番禺区")),
    ("深圳市", ("南山区", "福田区", "罗湖区", "宝安区")),
    ("杭州市", ("西湖区", "上城区", "滨江区", "余杭区")),
    ("成都市", ("武侯区", "锦江区", "青羊区", "高新区")),
    ("南京市", ("鼓楼区", "玄武区", "秦淮区", "建邺区")),
    ("武汉市", ("洪山区", "江汉区", "武昌区")),
    ("西安市", ("雁塔区", "碑林区", "未央区")),
    ("苏州市", ("姑苏区", "吴中区", "相城区")),
)
_ZH_PROVINCE_CITIES = (
    ("浙江省", "宁波市", "鄞州区"),
    ("江苏省", "无锡市", "梁溪区"),
    ("广东省", "佛山市", "南海区"),
)
_ZH_ROADS = (
    "建国路 人民路 中山路 解放路 张江路 文三路 体育西路 漕溪北路 珞喻路 长安街 南京东路 淮海中路 天府大道 "
    "深南大道 科技南路 学院路 新华街 幸福巷 丈八东路 星湖街 延安西路 北京南路 滨江大道"
).split()
_ZH_BLOCKS = (
    "阳光花园 锦绣家园 翠湖小区 金色家园 世纪公寓 华府新村 碧桂园 万科城市花园 绿地大厦 国贸大厦".split()
)
_ZH_TOWERS = "中关村大厦 恒隆广场 东部软件园 国贸中心 西溪园区 环球金融中心 科技大楼".split()
_ZH_ESTATES = "望京西园 回龙观东园 天通苑 方庄芳城园".split()
_EN_STREETS = (
    "Oak Maple Pine Cedar Elm Washington Lake Hill Park Sunset Highland Jefferson Lincoln Madison Franklin "
    "Willow Birch Spring Meadow River"
).split()
_EN_SUFFIXES = "Street St Avenue Ave Road Rd Boulevard Blvd Lane Drive Court Way Place Terrace".split()
_EN_CITIES = (
    ("Springfield", "IL"),
    ("Austin", "TX"),
    ("Portland", "OR"),
    ("Denver", "CO"),
    ("Madison", "WI"),
    ("Columbus", "OH"),
    ("Raleigh", "NC"),
    ("Boston", "MA"),
)


def _zh_name(rng: random.Random) -> str:
    return rng.choice(_SURNAMES) + rng.choice(_GIVEN) + rng.choice(("", "", rng.choice(_GIVEN)))


def _en_name(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST_EN)} {rng.choice(_LAST_EN)}"


def _zh_address(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.15:
        prov, city, dist = rng.choice(_ZH_PROVINCE_CITIES)
        head = prov + city + dist
    else:
        city, dists = rng.choice(_ZH_CITIES)
        head = city + rng.choice(dists)
        if rng.random() < 0.2:
            head = rng.choice(dists)  # a district alone, as people often say it
    section = rng.choice(("", "", "", f"{rng.choice('一二三四')}段"))
    road = f"{rng.choice(_ZH_ROADS)}{section}{rng.randint(1, 999)}号"
    detail = rng.choice(
        (
            "",
            f"{rng.randint(1, 30)}栋{rng.randint(101, 2808)}室",
            f"{rng.randint(1, 20)}号楼{rng.randint(1, 6)}单元{rng.randint(101, 1808)}室",
            f"{rng.randint(1, 40)}楼",
            f"{rng.randint(1, 12)}幢{rng.randint(101, 1202)}",
            f"{rng.choice(_ZH_TOWERS)}{rng.randint(2, 40)}层{rng.randint(1001, 4020)}",
            f"{rng.choice(_ZH_TOWERS)}{rng.choice('ABCD一二')}座{rng.randint(101, 2808)}室",
        )
    )
    r = rng.random()
    if r < 0.2:  # a housing estate instead of a street number
        b = rng.choice(_ZH_BLOCKS)
        return head + f"{b}{rng.randint(1, 30)}栋{rng.randint(1, 4)}单元{rng.randint(101, 2606)}室"
    if r < 0.3:  # an estate with zones and numbered buildings
        return (
            head
            + f"{rng.choice(_ZH_ESTATES)}{rng.choice('一二三四')}区{rng.randint(1, 400)}号楼{rng.randint(1, 30)}层{rng.randint(101, 3008)}"
        )
    return head + road + detail


def _en_address(rng: random.Random) -> str:
    street = f"{rng.randint(1, 9899)} {rng.choice(_EN_STREETS)} {rng.choice(_EN_SUFFIXES)}"
    city, st = rng.choice(_EN_CITIES)
    unit = rng.choice(
        ("", f", Apt {rng.randint(1, 40)}{rng.choice('ABCD')}", f", Suite {rng.randint(100, 990)}")
    )
    tail = rng.choice(("", f", {city}, {st} {rng.randint(10000, 99999)}", f", {city}"))
    return street + unit + tail


# ---------------------------------------------------------------- the other kinds
def _phone(rng: random.Random) -> tuple[str, str, tuple[str, ...]]:
    """(value, lang, digit variants)."""
    r = rng.random()
    if r < 0.45:
        d = rng.choice("3456789") + "".join(rng.choice(string.digits) for _ in range(9))
        d = "1" + d
        v = rng.choice((d, f"{d[:3]} {d[3:7]} {d[7:]}", f"{d[:3]}-{d[3:7]}-{d[7:]}", f"+86 {d}", f"+86-{d}"))
        return v, "zh", (d,)
    if r < 0.6:
        area = rng.choice(("010", "021", "020", "0755", "0571", "028"))
        num = str(rng.randint(2, 8)) + "".join(
            rng.choice(string.digits) for _ in range(7 if len(area) == 3 else 6)
        )
        v = rng.choice((f"{area}-{num}", f"({area}) {num}"))
        return v, "zh", (area + num,)
    if r < 0.9:
        a, b, c = rng.randint(201, 989), rng.randint(200, 989), rng.randint(0, 9999)
        v = rng.choice(
            (
                f"({a}) {b}-{c:04d}",
                f"{a}-{b}-{c:04d}",
                f"{a}.{b}.{c:04d}",
                f"+1 {a} {b} {c:04d}",
                f"+1-{a}-{b}-{c:04d}",
            )
        )
        return v, "en", (f"{a}{b}{c:04d}",)
    cc, groups = rng.choice((("44", (2, 4, 4)), ("81", (1, 4, 4)), ("49", (3, 7)), ("33", (1, 2, 2, 2, 2))))
    parts = ["".join(rng.choice(string.digits) for _ in range(g)) for g in groups]
    parts[0] = str(rng.randint(1, 9)) + parts[0][1:]
    trunk = "(0)" if cc in ("44", "49") and rng.random() < 0.4 else ""  # "+44 (0)20 7946 0958"
    return f"+{cc} {trunk}" + " ".join(parts), "en", (cc + "".join(parts),)


def _email(rng: random.Random) -> str:
    user = rng.choice(
        (
            f"{rng.choice(_FIRST_EN).lower()}.{rng.choice(_LAST_EN).lower()}",
            f"{rng.choice(_FIRST_EN).lower()}{rng.randint(1, 99)}",
            "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(5, 9)))
            + str(rng.randint(10, 9999)),
            f"{rng.choice(_LAST_EN).lower()}+{rng.choice(('shop', 'news', 'work'))}",
        )
    )
    domain = rng.choice(
        ("gmail.com", "163.com", "qq.com", "outlook.com", "example.org", "mail.example.co.uk", "126.com")
    )
    return f"{user}@{domain}"


def _ssn(rng: random.Random) -> tuple[str, str]:
    area = rng.choice([a for a in range(1, 900) if a != 666])
    d = f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"
    return rng.choice(
        (f"{d[:3]}-{d[3:5]}-{d[5:]}", f"{d[:3]}-{d[3:5]}-{d[5:]}", f"{d[:3]} {d[3:5]} {d[5:]}")
    ), d


def _passport(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.5:
        return rng.choice("EGDSP") + "".join(rng.choice(string.digits) for _ in range(8))
    if r < 0.7:
        return (
            rng.choice(string.ascii_uppercase)
            + rng.choice(string.ascii_uppercase)
            + "".join(rng.choice(string.digits) for _ in range(7))
        )
    return str(rng.randint(1, 9)) + "".join(rng.choice(string.digits) for _ in range(8))


_ALNUM = string.ascii_letters + string.digits


def _rand(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if sum(c.isdigit() for c in s) >= 2 and sum(c.isalpha() for c in s) >= 4:
            return s


def _secret(rng: random.Random) -> tuple[str, str]:
    """(value, key-kind hint used to pick a template)."""
    r = rng.randrange(9)
    if r == 0:
        return "sk-proj-" + _rand(rng, 40), "key"
    if r == 1:
        return "sk-" + _rand(rng, 48), "key"
    if r == 2:
        return "AKIA" + _rand(rng, 16, string.ascii_uppercase + string.digits), "key"
    if r == 3:
        return "ghp_" + _rand(rng, 36), "token"
    if r == 4:
        return "xoxb-" + "-".join(str(rng.randint(10**10, 10**11)) for _ in range(2)) + "-" + _rand(
            rng, 24
        ), "token"
    if r == 5:
        return "sk_live_" + _rand(rng, 24), "key"
    if r == 6:
        return "AIza" + _rand(rng, 35, _ALNUM + "_-"), "key"
    pw = _rand(rng, rng.randint(8, 14), _ALNUM + "#$%&*@!")
    return pw, "password"


_MED_ZH = (
    "糖尿病 高血压 抑郁症 焦虑症 双相情感障碍 乙肝 哮喘 癫痫 冠心病 甲状腺癌 乳腺癌 肺结核 类风湿 痛风 强迫症 "
    "胰岛素 二甲双胍 舍曲林 氟西汀 艾司西酞普兰 阿普唑仑 碳酸锂 拉莫三嗪 降压药 抗抑郁药"
).split()
_MED_EN_TERMS = (
    "diabetes",
    "hypertension",
    "depression",
    "bipolar disorder",
    "schizophrenia",
    "breast cancer",
    "leukemia",
    "lymphoma",
    "chemotherapy",
    "hepatitis B",
    "epilepsy",
    "Parkinson's disease",
    "dementia",
    "dialysis",
    "multiple sclerosis",
    "rheumatoid arthritis",
    "insomnia",
    "infertility",
    "Crohn's disease",
    "metformin",
    "sertraline",
    "fluoxetine",
    "escitalopram",
    "Lexapro",
    "alprazolam",
    "lamotrigine",
    "methylphenidate",
    "warfarin",
    "levothyroxine",
)

# ---------------------------------------------------------------- templates
_HOBBY_ZH = "周末喜欢去钓鱼 最近在学吉他 每天早上跑步五公里 喜欢喝手冲咖啡 下个月想去云南旅行 周三晚上打羽毛球 在养一只橘猫 喜欢看科幻小说".split()
_HOBBY_EN = (
    "I love jazz",
    "I play tennis on Saturdays",
    "I'm learning Spanish",
    "I prefer window seats",
    "my cat is called Miso",
    "I run every morning",
    "I'm vegetarian",
    "I collect vinyl records",
)

_T: dict[str, dict[str, tuple[str, ...]]] = {
    "cn_id": {
        "zh": (
            "我的身份证号是{v}，{h}。",
            "帮我订票用这个身份证：{v}，{h}。",
            "身份证号码{v}，下周去上海出差。",
        ),
        "en": ("My Chinese ID number is {v}, and {h}.", "For the train ticket my resident ID is {v}."),
    },
    "bank_card": {
        "zh": (
            "我的银行卡号是{v}，工资每月15号到账。",
            "用这张卡付款：{v}，{h}。",
            "信用卡{v}快到期了，{h}。",
        ),
        "en": (
            "My card number is {v}, {h}.",
            "Charge it to my Visa {v} please.",
            "my debit card is {v} and {h}.",
        ),
    },
    "phone": {
        "zh": ("我手机号是{v}，{h}。", "有事打我电话{v}，{h}。", "我的新号码：{v}。"),
        "en": ("My phone number is {v}, and {h}.", "You can call me at {v}; {h}.", "my cell is {v} btw."),
    },
    "email": {
        "zh": ("我的邮箱是{v}，{h}。", "把资料发我邮箱 {v} 吧，{h}。"),
        "en": ("Email me at {v}, {h}.", "My personal email is {v} and {h}."),
    },
    "ssn": {
        "zh": ("我的社会安全号是{v}，{h}。",),
        "en": ("My SSN is {v} and {h}.", "my social security number: {v}, {h}.", "SSN {v} for the tax form."),
    },
    "passport": {
        "zh": ("我的护照号是{v}，{h}。", "护照号码{v}，下个月出国。"),
        "en": ("My passport number is {v}, {h}.", "passport no. {v}, expires next year."),
    },
    "address": {
        "zh": ("我住在{v}，{h}。", "我家地址是{v}，{h}。", "公司在{v}，离地铁站很近。"),
        "en": ("I live at {v}, and {h}.", "My home address is {v}; {h}.", "Our office is at {v}."),
    },
    "secret": {
        "zh": ("测试环境的密钥是{v}，{h}。", "我的密码是{v}，{h}。", "API key：{v}，周四部署。"),
        "en": (
            "our staging key is {v} and {h}.",
            "my password is {v} and {h}.",
            "the API token: {v}, rotate it monthly.",
        ),
    },
    "medical": {
        "zh": ("我去年确诊了{v}，{h}。", "我在吃{v}，{h}。", "医生说我有{v}，不过{h}。"),
        "en": (
            "I was diagnosed with {v} last year, but {h}.",
            "I take {v} every day and {h}.",
            "My doctor says I have {v}; {h}.",
        ),
    },
}
_NECESSARY: dict[str, dict[str, tuple[str, ...]]] = {
    "address": {
        "zh": (
            "以后下单都寄这个地址：{v}，收件人{n}。",
            "快递都送到{v}，收件人写{n}。",
            "记住我的收货地址：{v}，收件人{n}。",
        ),
        "en": (
            "Ship everything to {v}, attention {n}.",
            "From now on deliver my orders to {v} (for {n}).",
            "Please send packages to {v}, addressed to {n}.",
        ),
    },
    "phone": {
        "zh": ("快递员送货时打这个电话：{v}，找{n}。", "以后下单收件电话留{v}，收件人{n}。"),
        "en": ("For deliveries call {v} and ask for {n}.", "Ship my orders with contact phone {v}, for {n}."),
    },
    "email": {
        "zh": ("记住我的邮箱{v}，以后用于接收发货通知，收件人{n}。",),
        "en": ("Remember my email {v} for order notifications, name {n}.",),
    },
}

# (kind, share of the corpus)
_MIX = (
    ("cn_id", 0.10),
    ("bank_card", 0.10),
    ("phone", 0.14),
    ("email", 0.09),
    ("ssn", 0.07),
    ("passport", 0.08),
    ("address", 0.16),
    ("secret", 0.12),
    ("medical", 0.09),
)
_NECESSARY_SHARE = {"address": 0.45, "phone": 0.2, "email": 0.15}


def _value(kind: str, rng: random.Random, lang: str) -> tuple[str, str, tuple[str, ...], str]:
    """(value, lang, variants, template hint)."""
    if kind == "cn_id":
        v = cn_resident_id(rng)
        return v, lang, (), ""
    if kind == "bank_card":
        prefix, length, groups = rng.choice(_CARD_KINDS)
        d = luhn_card(rng, prefix, length)
        v = rng.choice((d, _group(d, groups, " "), _group(d, groups, "-")))
        return v, lang, (d,), ""
    if kind == "phone":
        v, plang, variants = _phone(rng)
        return v, plang, variants, ""
    if kind == "email":
        return _email(rng), lang, (), ""
    if kind == "ssn":
        v, d = _ssn(rng)
        return v, lang, (d,), ""
    if kind == "passport":
        return _passport(rng), lang, (), ""
    if kind == "address":
        return (_zh_address(rng), "zh", (), "") if lang == "zh" else (_en_address(rng), "en", (), "")
    if kind == "secret":
        v, hint = _secret(rng)
        return v, lang, (), hint
    if kind == "medical":
        return (
            (rng.choice(_MED_ZH), "zh", (), "") if lang == "zh" else (rng.choice(_MED_EN_TERMS), "en", (), "")
        )
    raise ValueError(kind)


def _template(kind: str, lang: str, hint: str, rng: random.Random) -> str:
    options = _T[kind][lang]
    if kind == "secret":
        if hint == "password":
            options = tuple(t for t in options if "密码" in t or "password" in t)
        else:
            options = tuple(t for t in options if "密码" not in t and "password" not in t)
    return rng.choice(options)


def generate(n: int = 1000, *, seed: int = 7) -> list[PiiSample]:
    """``n`` messages, each carrying exactly one sensitive value (deterministic for a given seed)."""
    rng = random.Random(seed)
    out: list[PiiSample] = []
    seen: set[str] = set()
    counts = [(kind, round(share * n)) for kind, share in _MIX]
    counts[-1] = (counts[-1][0], n - sum(c for _, c in counts[:-1]))
    for kind, count in counts:
        made = 0
        while made < count:
            lang = "zh" if rng.random() < 0.5 else "en"
            v, lang, variants, hint = _value(kind, rng, lang)
            if v in seen and kind != "medical":  # conditions and drugs are a short list: they repeat
                continue
            necessary = kind in _NECESSARY_SHARE and rng.random() < _NECESSARY_SHARE[kind]
            if necessary:
                who = _zh_name(rng) if lang == "zh" else _en_name(rng)
                text = rng.choice(_NECESSARY[kind][lang]).format(v=v, n=who)
            else:
                hobby = rng.choice(_HOBBY_ZH if lang == "zh" else _HOBBY_EN)
                text = _template(kind, lang, hint, rng).format(v=v, h=hobby)
            if text in seen:
                continue
            seen.update((v, text))
            variants = tuple(x for x in variants if x != v)
            out.append(PiiSample(kind, v, text, lang, necessary, variants))
            made += 1
    rng.shuffle(out)
    return out
