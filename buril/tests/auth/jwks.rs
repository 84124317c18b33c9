//! Keys and tokens for the authorization tests: RSA keys of `tests/fixtures/` (made once by
//! openssl) and P-256 keys made by ring, JWTs they sign, the SHA-256 digest a static token is
//! kept as, and an issuer that serves its metadata and its keys (a JWKS) over plain HTTP on
//! loopback.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};

/// A signing key and its public JWK.
pub struct Key {
    pub kid: String,
    pub alg: Algorithm,
    pub encoding: EncodingKey,
    pub jwk: Value,
    /// The public key in PEM (RSA only), for the algorithm-confusion token.
    pub public_pem: Option<Vec<u8>>,
}

/// Base64url without padding, as JOSE writes bytes.
pub fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// An RSA key pair of `tests/fixtures/` (2048 bits, made once by openssl: see the README
/// there), so that no test runs openssl.
pub struct RsaPair {
    /// The private key, PKCS #8 in PEM.
    pub private: &'static str,
    /// Its public key, SubjectPublicKeyInfo in PEM.
    pub public: &'static str,
}

/// The key pair [`rsa_key`] signs with.
pub const RSA_1: RsaPair = RsaPair {
    private: include_str!("../fixtures/rsa_1.pem"),
    public: include_str!("../fixtures/rsa_1.pub.pem"),
};

/// A second key pair, other than [`RSA_1`]: a key the issuer does not publish, or a forger's.
pub const RSA_2: RsaPair = RsaPair {
    private: include_str!("../fixtures/rsa_2.pem"),
    public: include_str!("../fixtures/rsa_2.pub.pem"),
};

/// The RSA key of [`RSA_1`], named `kid`.
pub fn rsa_key(kid: &str) -> Key {
    rsa_key_of(&RSA_1, kid)
}

/// The RSA key of `pair`, named `kid`.
pub fn rsa_key_of(pair: &RsaPair, kid: &str) -> Key {
    let der: String = pair
        .private
        .lines()
        .filter(|line| !line.starts_with("-----"))
        .collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(der)
        .expect("a PEM body");
    let public = ring::signature::RsaKeyPair::from_pkcs8(&der)
        .expect("an RSA key in PKCS #8")
        .public()
        .as_ref()
        .to_vec();
    let n = rsa_modulus(&public);
    Key {
        kid: kid.to_owned(),
        alg: Algorithm::RS256,
        encoding: EncodingKey::from_rsa_pem(pair.private.as_bytes()).unwrap(),
        jwk: json!({"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": b64(n), "e": "AQAB"}),
        public_pem: Some(pair.public.as_bytes().to_vec()),
    }
}

/// The modulus of an RSAPublicKey in DER (`SEQUENCE { n INTEGER, e INTEGER }`), big-endian
/// without the sign byte.
fn rsa_modulus(der: &[u8]) -> &[u8] {
    /// The length of the element whose length bytes start at `at`, and where its content starts.
    fn length(der: &[u8], at: usize) -> (usize, usize) {
        match der[at] {
            short @ 0..0x80 => (usize::from(short), at + 1),
            long => {
                let count = usize::from(long & 0x7f);
                let length = der[at + 1..at + 1 + count]
                    .iter()
                    .fold(0, |length, byte| length << 8 | usize::from(*byte));
                (length, at + 1 + count)
            }
        }
    }
    assert_eq!(der[0], 0x30, "a SEQUENCE");
    let (_, at) = length(der, 1);
    assert_eq!(der[at], 0x02, "an INTEGER");
    let (len, start) = length(der, at + 1);
    let n = &der[start..start + len];
    n.strip_prefix(&[0]).unwrap_or(n)
}

/// A P-256 key made by ring now.
pub fn ec_key(kid: &str) -> Key {
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    // An uncompressed point: 0x04, x, y.
    let point = pair.public_key().as_ref();
    Key {
        kid: kid.to_owned(),
        alg: Algorithm::ES256,
        encoding: EncodingKey::from_ec_der(pkcs8.as_ref()),
        jwk: json!({"kty": "EC", "kid": kid, "crv": "P-256", "x": b64(&point[1..33]), "y": b64(&point[33..65])}),
        public_pem: None,
    }
}

/// Seconds since the Unix epoch, as JWT times are written.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A JWT of `claims` signed by `key`, naming its `kid`.
pub fn sign(key: &Key, claims: &Value) -> String {
    let mut header = Header::new(key.alg);
    header.kid = Some(key.kid.clone());
    jsonwebtoken::encode(&header, claims, &key.encoding).unwrap()
}

/// A JWT of `header` and `payload` (both as given, byte for byte) signed by `key` with `alg`:
/// for headers `jsonwebtoken` would not write (`crit`, odd `typ`s, `jku`) and payloads that
/// are not UTF-8.
pub fn sign_raw(key: &Key, alg: Algorithm, header: &[u8], payload: &[u8]) -> String {
    let message = format!("{}.{}", b64(header), b64(payload));
    let signature = jsonwebtoken::crypto::sign(message.as_bytes(), &key.encoding, alg).unwrap();
    format!("{message}.{signature}")
}

/// An authorization server's metadata and keys, served over plain HTTP on loopback.
pub struct Issuer {
    /// The issuer's identifier (its `iss`), under which it serves its metadata.
    pub url: String,
    /// The JWKS it serves.
    pub jwks: Arc<Mutex<Value>>,
    /// How many times its keys were fetched.
    pub key_fetches: Arc<AtomicUsize>,
    /// How many requests it was sent, of any kind.
    pub requests: Arc<AtomicUsize>,
}

impl Issuer {
    /// Starts serving `keys` on a loopback port of its own.
    pub fn start(keys: &[&Key]) -> Issuer {
        Issuer::start_claiming(keys, None)
    }

    /// As [`start`](Self::start), but its metadata names `claimed` as the issuer (another
    /// issuer's document, as a misconfigured or hostile server would serve).
    pub fn start_claiming(keys: &[&Key], claimed: Option<&str>) -> Issuer {
        // Laid out as Keycloak lays out a realm: OpenID Connect discovery under the issuer's
        // path (RFC 8414's well-known URI answers 404, so discovery falls back to it), the
        // keys at `protocol/openid-connect/certs`.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/realms/tools", listener.local_addr().unwrap());
        let jwks = Arc::new(Mutex::new(
            json!({"keys": keys.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>()}),
        ));
        let key_fetches = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(AtomicUsize::new(0));
        let (served, fetches, issuer) = (Arc::clone(&jwks), Arc::clone(&key_fetches), url.clone());
        let named = claimed.map_or_else(|| url.clone(), str::to_owned);
        let asked = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                asked.fetch_add(1, Ordering::SeqCst);
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                        break;
                    }
                }
                let (status, body) = match path.as_str() {
                    "/realms/tools/.well-known/openid-configuration" => (
                        "200 OK",
                        json!({"issuer": named,
                               "jwks_uri": format!("{issuer}/protocol/openid-connect/certs"),
                               "token_endpoint": format!("{issuer}/protocol/openid-connect/token"),
                               "authorization_endpoint": format!("{issuer}/protocol/openid-connect/auth")})
                        .to_string(),
                    ),
                    "/realms/tools/protocol/openid-connect/certs" => {
                        fetches.fetch_add(1, Ordering::SeqCst);
                        ("200 OK", served.lock().unwrap().to_string())
                    }
                    _ => ("404 Not Found", "{}".to_owned()),
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Issuer {
            url,
            jwks,
            key_fetches,
            requests,
        }
    }

    /// Serves `keys` from now on, in place of the keys served so far.
    pub fn publish(&self, keys: &[&Key]) {
        *self.jwks.lock().unwrap() =
            json!({"keys": keys.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>()});
    }
}

/// The hex SHA-256 digest of `token`, as a static token is configured.
pub fn sha256_hex(token: &str) -> String {
    use std::fmt::Write as _;
    let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
    digest.as_ref().iter().fold(String::new(), |mut hex, byte| {
        let _ = write!(hex, "{byte:02x}");
        hex
    })
}
