"""TFRecord files of ``tf.train.Example`` protos, read and written without TensorFlow (a JAX worker has none).
A record is ``uint64 length``, its masked CRC-32C, the data and its masked CRC-32C (little-endian); the reader checks
the length's CRC (CRC-32C from ``google_crc32c`` when installed, else pure Python). ``gs://`` paths go through
``fsspec`` with ``gcsfs``. Files written here are read by ``tf.data.TFRecordDataset`` (tested).
"""

from __future__ import annotations

import glob as _glob
import struct
from collections.abc import Iterator
from typing import IO, Any

_POLY = 0x82F63B78  # CRC-32C (Castagnoli), reversed


def _table() -> list[int]:
    out = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        out.append(c)
    return out


_TABLE = _table()


def crc32c(data: bytes) -> int:
    """CRC-32C of ``data``."""
    try:
        import google_crc32c

        return int(google_crc32c.value(data))
    except ImportError:
        crc = 0xFFFFFFFF
        table = _TABLE
        for b in data:
            crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
        return crc ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    """TFRecord's masked CRC: rotate right by 15 and add a constant."""
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


# --- protobuf wire format ----------------------------------------------------------------------------

def _varint(value: int) -> bytes:
    value &= 0xFFFFFFFFFFFFFFFF  # int64: negatives as two's complement (10 bytes)
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _fields(buf: bytes) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) of a message: bytes for length-delimited, int for varints."""
    pos = 0
    while pos < len(buf):
        key, pos = _read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = _read_varint(buf, pos)
        elif wire == 2:
            n, pos = _read_varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value


def encode_example(features: dict[str, bytes | list[int] | list[float]]) -> bytes:
    """A serialized ``tf.train.Example``: bytes -> BytesList, ints -> Int64List, floats -> FloatList."""
    entries = b""
    for name, value in features.items():
        if isinstance(value, bytes):
            feature = _field(1, _field(1, value))
        elif all(isinstance(v, int) for v in value):
            feature = _field(3, _field(1, b"".join(_varint(int(v)) for v in value)))
        else:
            feature = _field(2, _field(1, struct.pack(f"<{len(value)}f", *value)))
        entries += _field(1, _field(1, name.encode()) + _field(2, feature))
    return _field(1, entries)


def decode_example(data: bytes) -> dict[str, bytes | list[int] | list[float]]:
    """The features of a serialized ``tf.train.Example`` (a BytesList of one value as that bytes value)."""
    out: dict[str, Any] = {}
    for number, _, features in _fields(data):
        if number != 1:
            continue
        for _, _, entry in _fields(features):
            name, feature = "", b""
            for n, _, v in _fields(entry):
                if n == 1:
                    name = v.decode()
                elif n == 2:
                    feature = v
            for kind, _, lst in _fields(feature):
                values: list[Any] = []
                for _, wire, v in _fields(lst):
                    if kind == 1:
                        values.append(bytes(v))
                    elif kind == 3 and wire == 2:  # packed int64
                        pos = 0
                        while pos < len(v):
                            x, pos = _read_varint(v, pos)
                            values.append(x - (1 << 64) if x >= 1 << 63 else x)
                    elif kind == 3:
                        values.append(v - (1 << 64) if v >= 1 << 63 else v)
                    elif kind == 2 and wire == 2:  # packed float
                        values.extend(struct.unpack(f"<{len(v) // 4}f", v))
                    elif kind == 2:
                        values.append(struct.unpack("<f", v)[0])
                out[name] = values[0] if kind == 1 and len(values) == 1 else values
    return out


# --- files -------------------------------------------------------------------------------------------

def open_file(path: str, mode: str = "rb") -> IO[bytes]:
    """A local file, or a ``gs://`` object through fsspec and gcsfs."""
    if not path.startswith("gs://"):
        return open(path, mode)  # the caller closes it
    return _gcs(path).open(path, mode)


def _gcs(path: str) -> Any:  # an fsspec filesystem
    try:
        import fsspec

        return fsspec.filesystem("gs")
    except (ImportError, ValueError):
        raise OSError(f"{path}: gs:// paths need gcsfs (pip install gcsfs)") from None


def glob(pattern: str) -> list[str]:
    """Sorted paths matching ``pattern`` (local, or ``gs://`` through fsspec and gcsfs)."""
    if not pattern.startswith("gs://"):
        return sorted(_glob.glob(pattern))
    return sorted("gs://" + p.removeprefix("gs://") for p in _gcs(pattern).glob(pattern))


def read_records(path: str) -> Iterator[bytes]:
    """The records of one TFRecord file; ValueError naming the file when it is not one (or is truncated)."""
    with open_file(path) as f:
        while True:
            head = f.read(12)
            if not head:
                return
            if len(head) < 12:
                raise ValueError(f"{path}: truncated TFRecord header")
            (length,), (crc,) = struct.unpack("<Q", head[:8]), struct.unpack("<I", head[8:])
            if masked_crc(head[:8]) != crc:
                raise ValueError(f"{path}: not a TFRecord file (bad length checksum)")
            data = f.read(length)
            if len(data) < length or len(f.read(4)) < 4:
                raise ValueError(f"{path}: truncated TFRecord")
            yield data


class Writer:
    """Writes records to one TFRecord file (``with Writer(path) as w: w.write(data)``)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._f = open_file(path, "wb")
        self.bytes_written = 0

    def write(self, data: bytes) -> None:
        """Append one record."""
        length = struct.pack("<Q", len(data))
        self._f.write(length + struct.pack("<I", masked_crc(length)) + data + struct.pack("<I", masked_crc(data)))
        self.bytes_written += len(data) + 16

    def close(self) -> None:
        """Close the file."""
        self._f.close()

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
