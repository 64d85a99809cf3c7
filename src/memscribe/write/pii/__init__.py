"""Sensitive-value detectors, one module per family; :mod:`memscribe.write.privacy` combines them.

Each module exposes ``find(text) -> Iterator[PiiFinding]``: pure, no I/O, precision first (dates, prices,
order ids, flight numbers and times are never findings). Maintained libraries decide where one exists:
``phonenumbers`` for phone numbers, ``python-stdnum`` for checksummed numbers, ``usaddress`` for US street
addresses; Chinese addresses, non-US English addresses, secrets and medical terms are ours.
"""
