"""English street addresses: US (with ``usaddress``, whose CRF model ships in its wheel), UK, Canadian,
Australian / NZ and Irish formats, PO boxes and US military mail (APO / FPO / DPO).

A street address is a house number, a street name and a street type from USPS Publication 28 and its
Commonwealth counterparts (Close, Crescent, Parade, Esplanade …), optionally led by a unit ("Flat 3,",
"Unit 5/12") and followed by a unit, a town, a state or county, and a postcode (US ZIP, UK postcode,
Canadian postal code, Australian state + postcode). Capitalised street names stand on their own;
a lower-case candidate ("42 wallaby way") must also be read as an address by usaddress, so "I ran 5 miles
down the road" is not one. A postcode alone counts only after a postcode word.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from memscribe.write.pii.finding import PiiFinding, finding

__all__ = ["find_address_en"]

_SUFFIXES = [
    "Alley",
    "Aly",
    "Annex",
    "Anx",
    "Arcade",
    "Arc",
    "Avenue",
    "Ave",
    "Av",
    "Bayou",
    "Beach",
    "Bend",
    "Bluff",
    "Bluffs",
    "Bottom",
    "Boulevard",
    "Blvd",
    "Boulevarde",
    "Branch",
    "Bridge",
    "Brg",
    "Brook",
    "Burg",
    "Bypass",
    "Byp",
    "Camp",
    "Canyon",
    "Cape",
    "Causeway",
    "Cswy",
    "Center",
    "Centre",
    "Ctr",
    "Circle",
    "Cir",
    "Circuit",
    "Cct",
    "Cliff",
    "Cliffs",
    "Club",
    "Common",
    "Commons",
    "Corner",
    "Corners",
    "Course",
    "Court",
    "Ct",
    "Courts",
    "Cove",
    "Creek",
    "Crk",
    "Crescent",
    "Cres",
    "Crest",
    "Crossing",
    "Xing",
    "Crossroad",
    "Curve",
    "Dale",
    "Dam",
    "Divide",
    "Drive",
    "Dr",
    "Drives",
    "Estate",
    "Estates",
    "Expressway",
    "Expy",
    "Extension",
    "Ext",
    "Falls",
    "Ferry",
    "Field",
    "Fields",
    "Flat",
    "Flats",
    "Ford",
    "Forest",
    "Forge",
    "Fork",
    "Forks",
    "Fort",
    "Freeway",
    "Fwy",
    "Garden",
    "Gardens",
    "Gdns",
    "Gateway",
    "Glen",
    "Green",
    "Grn",
    "Grove",
    "Grv",
    "Gr",
    "Harbor",
    "Harbour",
    "Haven",
    "Heights",
    "Hts",
    "Highway",
    "Hwy",
    "Hill",
    "Hills",
    "Hollow",
    "Inlet",
    "Island",
    "Isle",
    "Junction",
    "Jct",
    "Key",
    "Knoll",
    "Knolls",
    "Lake",
    "Lakes",
    "Landing",
    "Lane",
    "Ln",
    "Light",
    "Lock",
    "Lodge",
    "Loop",
    "Mall",
    "Manor",
    "Meadow",
    "Meadows",
    "Mews",
    "Mill",
    "Mills",
    "Mission",
    "Motorway",
    "Mount",
    "Mountain",
    "Neck",
    "Orchard",
    "Oval",
    "Overpass",
    "Park",
    "Parks",
    "Parkway",
    "Pkwy",
    "Pass",
    "Passage",
    "Path",
    "Pike",
    "Pines",
    "Place",
    "Pl",
    "Plain",
    "Plains",
    "Plaza",
    "Plz",
    "Point",
    "Pt",
    "Points",
    "Port",
    "Prairie",
    "Radial",
    "Ramp",
    "Ranch",
    "Rapids",
    "Rest",
    "Ridge",
    "Rdg",
    "River",
    "Road",
    "Rd",
    "Roads",
    "Route",
    "Rte",
    "Row",
    "Rue",
    "Run",
    "Shoal",
    "Shore",
    "Shores",
    "Skyway",
    "Spring",
    "Springs",
    "Spur",
    "Square",
    "Sq",
    "Station",
    "Sta",
    "Stravenue",
    "Stream",
    "Street",
    "St",
    "Streets",
    "Summit",
    "Terrace",
    "Ter",
    "Terr",
    "Throughway",
    "Trace",
    "Track",
    "Trafficway",
    "Trail",
    "Trl",
    "Tunnel",
    "Turnpike",
    "Tpke",
    "Underpass",
    "Union",
    "Valley",
    "Viaduct",
    "View",
    "Views",
    "Village",
    "Ville",
    "Vista",
    "Walk",
    "Wall",
    "Way",
    "Ways",
    "Well",
    "Wells",
    "Close",
    "Rise",
    "Parade",
    "Pde",
    "Drove",
    "Wynd",
    "Gate",
    "Quay",
    "Embankment",
    "Broadway",
    "Chase",
    "Croft",
    "End",
    "Fold",
    "Approach",
    "Vale",
    "Yard",
    "Esplanade",
    "Esp",
    "Promenade",
    "Grange",
    "Chemin",
    "Concession",
    "Sideroad",
    "Line",
]
_SUFFIX = r"(?:" + "|".join(sorted(set(_SUFFIXES), key=len, reverse=True)) + r")"
_DIR = r"(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West|Northeast|Northwest|Southeast|Southwest)"
_NUMBER = (
    r"(?:[0-9]{1,6}[A-Za-z]?(?:[-/][0-9]{1,5}[A-Za-z]?)?|One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten)"
)
_NAME_TOKEN = r"(?:[A-Za-z][A-Za-z'’.-]*|[0-9]{1,3}(?:st|nd|rd|th))"
_UNIT = (
    r"(?:Apt|Apartment|Suite|Ste|Unit|Flat|Fl|Floor|Rm|Room|Bldg|Building|Lot|Space|Spc|Trlr|Dept|Office|Level|Lvl"
    r"|Box|\#)"
)
_UNIT_PART = rf"(?:,?[ ]*{_UNIT}\.?[ ]*(?:No\.?[ ]*)?\#?[A-Za-z0-9-]{{1,6}}(?![A-Za-z0-9]))"
_LEAD_UNIT = rf"(?:{_UNIT}\.?[ ]*\#?[A-Za-z0-9-]{{1,6}},?[ ]+)"
_US_STATE = (
    r"(?:AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND"
    r"|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR|GU|VI|AS|MP|AA|AE|AP)"
)
_CA_PROV = r"(?:AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT)"
_AU_STATE = r"(?:NSW|VIC|QLD|WA|SA|TAS|ACT|NT)"
_UK_POSTCODE = r"(?:[A-Z]{1,2}[0-9][A-Z0-9]?[ ]?[0-9][A-Z]{2})"
_CA_POSTAL = r"(?:[ABCEGHJ-NPRSTVXY][0-9][ABCEGHJ-NPRSTV-Z][ ]?[0-9][ABCEGHJ-NPRSTV-Z][0-9])"
_IE_EIRCODE = r"(?:[AC-FHKNPRTV-Y][0-9]{2}|D6W)[ ]?[0-9AC-FHKNPRTV-Y]{4}"
_POSTCODE = rf"(?:{_US_STATE}[ ]+[0-9]{{5}}(?:-[0-9]{{4}})?|{_CA_PROV}[ ]+{_CA_POSTAL}|{_AU_STATE}[ ]+[0-9]{{4}}|{_UK_POSTCODE}|{_CA_POSTAL}|{_IE_EIRCODE}|[0-9]{{5}}(?:-[0-9]{{4}})?)"
_PLACE = r"(?:[A-Z][A-Za-z'’.-]+(?:[ ]+[A-Z][A-Za-z'’.-]+){0,2})"
_TAIL = (
    rf"(?:,?[ ]+(?!(?:and|but|so|or|for|to|in|on|at|with|the)\b){_PLACE}(?=[ ]*(?:,|$|[.;!?()]|[ ]+{_POSTCODE}(?![A-Za-z0-9])|[ ]+(?:and|but|so|please|thanks|by|for|from|to|on|in|next|this|last|until|since|starting|is|was|as|if|when|because|where|which|who|near|with|before|after|—|-)\b)))?"
    rf"(?:,?[ ]*(?:{_US_STATE}|{_CA_PROV}|{_AU_STATE})(?![A-Za-z])(?:[ ]+[0-9]{{4}}(?![0-9]))?)?"
    rf"(?:,?[ ]*{_POSTCODE}(?![A-Za-z0-9]))?"
    r"(?:,?[ ]*(?:USA|U\.S\.A\.|United States|UK|United Kingdom|Canada|Australia|New Zealand|Ireland)(?![A-Za-z]))?"
)
_STREET = re.compile(
    rf"(?<![A-Za-z0-9#/-]){_LEAD_UNIT}?(?P<num>{_NUMBER}),?[ ]+(?:{_DIR}\.?[ ]+)?"
    rf"(?:(?P<name>(?:{_NAME_TOKEN}[ ]+){{0,3}}{_NAME_TOKEN})[ ]+)?(?P<suffix>(?i:{_SUFFIX}))\.?(?![A-Za-z])"
    rf"(?:[ ]+{_DIR}\.?(?![A-Za-z]))?(?P<unit>{_UNIT_PART}{{0,2}})(?P<tail>{_TAIL})"
)
# "Rue de Rivoli 12" / "Hauptstraße 5" order (number after the street), common in Europe
_STREET_NUMBER_LAST = re.compile(
    r"(?<![A-Za-z])(?:(?:Rue|Via|Calle|Avenida|Rua|Boulevard|Avenue|Piazza|Plaza|Carrer)[ ]+(?:(?:de|del|della|la|le|des|du|di|da|do|dos)[ ]+)*[A-Z][A-Za-zÀ-ÿ'-]+(?:[ ]+[A-Z][A-Za-zÀ-ÿ'-]+){0,2}"
    r"|[A-Z][A-Za-zÀ-ÿ-]*(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|laan|straat|gracht|vej|gatan|gata|veien))"
    r",?[ ]+[0-9]{1,4}[a-z]?(?![0-9])(?:,?[ ]*[0-9]{4,5}[ ]+[A-Z][A-Za-zÀ-ÿ-]+)?"
)
_PO_BOX = re.compile(
    r"(?i)(?<![A-Za-z])(?:P\.?[ ]?O\.?[ ]*Box|Post[ ]+Office[ ]+Box|PO[ ]+Box|Locked[ ]+Bag|GPO[ ]+Box|PMB|Private[ ]+Bag)"
    rf"[ ]+[0-9]{{1,6}}(?![0-9])(?-i:{_TAIL})"
)
_MILITARY = re.compile(
    r"(?<![A-Za-z])(?:(?:PSC|CMR|Unit|USS[ ]+[A-Z][A-Za-z ]{2,30}?)[ ]+[0-9]{0,5},?[ ]*)?(?:Box[ ]+[0-9]{1,5},?[ ]*)?"
    r"(?:APO|FPO|DPO)[ ]+(?:AA|AE|AP)(?:[ ]+[0-9]{5}(?:-[0-9]{4})?)?(?![A-Za-z0-9])"
)
_POSTCODE_WORD = re.compile(
    r"(?i)(?:post[ ]?code|postal[ ]+code|zip(?:[ ]?code)?|eircode|邮编|邮政编码)(?:[ ]+(?:is|was))?[ ]*[:：]?[ ]*$"
)
_LONE_POSTCODE = re.compile(
    rf"(?<![A-Za-z0-9])(?:{_UK_POSTCODE}|{_CA_POSTAL}|{_IE_EIRCODE}|[0-9]{{5}}(?:-[0-9]{{4}})?|[0-9]{{4}}|[0-9]{{6}})(?![A-Za-z0-9])"
)
_ADDRESS_CUE = re.compile(
    r"(?i)(?:live[sd]?|living|stay(?:ing)?|located|address|ship(?:ped|ping)?|deliver(?:ed|y)?|send|sent|mail"
    r"|post|moved|move|based|residence|house|home|apartment|flat|office|come|visit\w*)\b[^.!?]{0,25}$"
)
_STOP_NAMES = frozenset(
    [
        "the",
        "a",
        "an",
        "my",
        "your",
        "his",
        "her",
        "our",
        "their",
        "this",
        "that",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "down",
        "up",
        "over",
        "under",
        "into",
        "onto",
        "around",
        "through",
        "across",
        "along",
        "near",
        "past",
        "i",
        "we",
        "you",
        "he",
        "she",
        "they",
        "it",
        "is",
        "was",
        "are",
        "were",
        "be",
    ]
)
_ADDRESS_LABELS = frozenset(
    [
        "AddressNumber",
        "AddressNumberPrefix",
        "AddressNumberSuffix",
        "StreetNamePreDirectional",
        "StreetNamePreModifier",
        "StreetNamePreType",
        "StreetName",
        "StreetNamePostType",
        "StreetNamePostDirectional",
        "StreetNamePostModifier",
        "OccupancyType",
        "OccupancyIdentifier",
        "SubaddressType",
        "SubaddressIdentifier",
        "BuildingName",
    ]
)


@cache
def _usaddress():  # type: ignore[no-untyped-def]
    import usaddress

    return usaddress


def _usaddress_agrees(candidate: str) -> bool:
    """usaddress reads the candidate as number + street: its first token an AddressNumber, and a street
    name and type among the labels."""
    try:
        parsed = _usaddress().parse(candidate)
    except Exception:
        return False
    labels = [label for _, label in parsed]
    return (
        bool(labels)
        and labels[0] == "AddressNumber"
        and "StreetName" in labels
        and "StreetNamePostType" in labels
        and all(
            label in _ADDRESS_LABELS or label in ("PlaceName", "StateName", "ZipCode") for label in labels
        )
    )


def _end(text: str, end: int) -> int:
    """Drop the trailing separators and a sentence's full stop ("… Baker Street." keeps "Street")."""
    while end > 0 and text[end - 1] in " ,":
        end -= 1
    if (
        end
        and text[end - 1] == "."
        and not re.search(r"(?:St|Ave|Rd|Dr|Blvd|Ln|Ct|Pl|U\.S\.A)\.$", text[:end])
    ):
        end -= 1
    return end


def find_address_en(text: str) -> Iterator[PiiFinding]:
    if not any(c.isdigit() for c in text):
        return
    for m in _STREET.finditer(text):
        names = (m.group("name") or "").split()
        if any(n.lower() in _STOP_NAMES for n in names):
            continue
        capitalised = all(n[0].isupper() or n[0].isdigit() for n in names) and (
            m.group("suffix")[0].isupper() or not names
        )
        if not names and not m.group("num")[0].isdigit():
            continue
        if not capitalised and not (
            _ADDRESS_CUE.search(text[max(0, m.start() - 40) : m.start()])
            and _usaddress_agrees(text[m.start("num") : m.end("suffix")])
        ):
            continue  # "a 5K charity run", "a 3 hour drive": lower case needs a cue and usaddress
        yield finding("address", text, m.start(), _end(text, m.end()), 0.8 if capitalised else 0.7)
    for rx in (_STREET_NUMBER_LAST, _PO_BOX, _MILITARY):
        for m in rx.finditer(text):
            yield finding("address", text, m.start(), _end(text, m.end()), 0.8)
    for m in _LONE_POSTCODE.finditer(text):
        if _POSTCODE_WORD.search(text[max(0, m.start() - 30) : m.start()]):
            yield finding("address", text, m.start(), m.end(), 0.7)
