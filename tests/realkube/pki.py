"""The certificates and keys a throwaway control plane needs, made with ``cryptography``.

One CA signs the API server's serving certificate (for 127.0.0.1 and localhost) and every client
certificate; the admin's carries the ``system:masters`` group, so it bypasses RBAC as a cluster
admin does, while every other identity is subject to it. Service-account tokens are signed with a
separate RSA key, as kube-apiserver's ``--service-account-signing-key-file`` expects.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

LIFETIME = datetime.timedelta(days=2)  # longer than any test run; the files die with the run
CLOCK_SKEW = datetime.timedelta(minutes=5)

PrivateKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey


@dataclass(frozen=True, slots=True)
class KeyPair:
    """A certificate and its private key, as PEM files."""

    cert: Path
    key: Path


@dataclass(frozen=True, slots=True)
class Pki:
    """Every file the control plane and its clients read."""

    ca: KeyPair
    serving: KeyPair
    admin: KeyPair
    service_account_key: Path  # RSA private key: signs tokens, and its public half verifies them


def make_pki(folder: Path) -> Pki:
    """Writes a fresh CA, serving certificate, admin client certificate and service-account key."""
    folder.mkdir(parents=True, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "toposched-test-ca")])
    ca_cert = (
        _builder(ca_name, ca_name, ca_key)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    ca = _write(folder, "ca", ca_cert, ca_key)
    serving_names = x509.SubjectAlternativeName(
        [
            x509.DNSName("localhost"),
            x509.DNSName("kubernetes.default.svc"),
            x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        ]
    )
    serving = _leaf(
        folder,
        "serving",
        ca_cert,
        ca_key,
        "kube-apiserver",
        (),
        ExtendedKeyUsageOID.SERVER_AUTH,
        serving_names,
    )
    admin = issue_client_cert(folder, ca, "toposched-admin", ("system:masters",))
    account_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    account_path = folder / "service-account.key"
    account_path.write_bytes(_private_pem(account_key))
    return Pki(ca=ca, serving=serving, admin=admin, service_account_key=account_path)


def issue_client_cert(folder: Path, ca: KeyPair, user: str, groups: tuple[str, ...] = ()) -> KeyPair:
    """A client certificate for ``user`` in ``groups`` (the API server reads CN and O), signed by ``ca``."""
    ca_cert = x509.load_pem_x509_certificate(ca.cert.read_bytes())
    ca_key = serialization.load_pem_private_key(ca.key.read_bytes(), password=None)
    if not isinstance(ca_key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey):
        raise TypeError(f"{ca.key}: the CA key is neither EC nor RSA")
    return _leaf(
        folder, f"client-{user}", ca_cert, ca_key, user, groups, ExtendedKeyUsageOID.CLIENT_AUTH, None
    )


def issue_serving_cert(folder: Path, ca: KeyPair, name: str) -> KeyPair:
    """A serving certificate for 127.0.0.1 and localhost named ``name``, signed by ``ca``: for a
    webhook server the API server calls on loopback."""
    ca_cert = x509.load_pem_x509_certificate(ca.cert.read_bytes())
    ca_key = serialization.load_pem_private_key(ca.key.read_bytes(), password=None)
    if not isinstance(ca_key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey):
        raise TypeError(f"{ca.key}: the CA key is neither EC nor RSA")
    names = x509.SubjectAlternativeName(
        [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    )
    return _leaf(folder, f"serving-{name}", ca_cert, ca_key, name, (), ExtendedKeyUsageOID.SERVER_AUTH, names)


def _leaf(
    folder: Path,
    stem: str,
    ca_cert: x509.Certificate,
    ca_key: PrivateKey,
    common_name: str,
    groups: tuple[str, ...],
    usage: x509.ObjectIdentifier,
    names: x509.SubjectAlternativeName | None,
) -> KeyPair:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name(
        [
            *(x509.NameAttribute(NameOID.ORGANIZATION_NAME, group) for group in groups),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )
    builder = (
        _builder(subject, ca_cert.subject, key)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    )
    if names is not None:
        builder = builder.add_extension(names, critical=False)
    return _write(folder, stem, builder.sign(ca_key, hashes.SHA256()), key)


def _builder(subject: x509.Name, issuer: x509.Name, key: PrivateKey) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - CLOCK_SKEW)
        .not_valid_after(now + LIFETIME)
    )


def _write(folder: Path, stem: str, cert: x509.Certificate, key: PrivateKey) -> KeyPair:
    pair = KeyPair(cert=folder / f"{stem}.crt", key=folder / f"{stem}.key")
    pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pair.key.write_bytes(_private_pem(key))
    pair.key.chmod(0o600)
    return pair


def _private_pem(key: PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
