//! Just enough HTTP/1.1 for one JSON POST per connection, on hyper's client (the hyper the MCP
//! server already uses), with TLS under the `rustls` feature.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::Request;
use hyper::header::{CONNECTION, CONTENT_TYPE, HOST, HeaderName, HeaderValue};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// The largest answer read: a model's answer is text, far below this.
const MAX_RESPONSE: usize = 16 * 1024 * 1024;

/// A parsed `http://` or `https://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Url {
    pub(crate) tls: bool,
    pub(crate) host: String,
    pub(crate) port: u16,
    /// Path and query, starting with `/`.
    pub(crate) path: String,
}

impl Url {
    pub(crate) fn parse(text: &str) -> Result<Url, String> {
        let (tls, rest) = if let Some(rest) = text.strip_prefix("http://") {
            (false, rest)
        } else if let Some(rest) = text.strip_prefix("https://") {
            (true, rest)
        } else {
            return Err(format!("`{text}` is not an http:// or https:// URL"));
        };
        let (authority, path) = match rest.find('/') {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, "/"),
        };
        if authority.contains('@') {
            return Err(format!(
                "`{text}`: credentials in the URL are not supported; name an environment \
                 variable holding the key instead"
            ));
        }
        let default_port = if tls { 443 } else { 80 };
        let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
            let Some((host, after)) = rest.split_once(']') else {
                return Err(format!("`{text}`: unclosed `[` in the host"));
            };
            let port = match after.strip_prefix(':') {
                Some(port) => port.parse().map_err(|_| format!("`{text}`: bad port"))?,
                None if after.is_empty() => default_port,
                None => return Err(format!("`{text}`: bad host")),
            };
            (host.to_owned(), port)
        } else {
            match authority.rsplit_once(':') {
                Some((host, port)) => (
                    host.to_owned(),
                    port.parse().map_err(|_| format!("`{text}`: bad port"))?,
                ),
                None => (authority.to_owned(), default_port),
            }
        };
        if host.is_empty() {
            return Err(format!("`{text}` names no host"));
        }
        Ok(Url {
            tls,
            host,
            port,
            path: path.to_owned(),
        })
    }

    /// The `Host` header's value.
    fn authority(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        let default_port = if self.tls { 443 } else { 80 };
        if self.port == default_port {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }
}

/// An HTTP response: the status code and the body.
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) body: Bytes,
}

/// POSTs `body` as JSON to `url` with `headers`, within `timeout`.
pub(crate) async fn post_json(
    url: &Url,
    headers: &[(String, String)],
    body: Vec<u8>,
    timeout: Duration,
) -> Result<Response, String> {
    let request = build(url, headers, body)?;
    let exchange = async {
        let tcp = TcpStream::connect((url.host.as_str(), url.port))
            .await
            .map_err(|error| format!("cannot connect to {}: {error}", url.authority()))?;
        let _ = tcp.set_nodelay(true);
        if url.tls {
            let tls = tls::connect(&url.host, tcp).await?;
            send(tls, request).await
        } else {
            send(tcp, request).await
        }
    };
    tokio::time::timeout(timeout, exchange).await.map_err(|_| {
        format!(
            "{} did not answer within {} s",
            url.authority(),
            timeout.as_secs_f64()
        )
    })?
}

fn build(
    url: &Url,
    headers: &[(String, String)],
    body: Vec<u8>,
) -> Result<Request<Full<Bytes>>, String> {
    let mut request = Request::post(url.path.as_str())
        .header(HOST, url.authority())
        .header(CONTENT_TYPE, "application/json")
        .header(CONNECTION, "close");
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("`{name}` is not a valid header name"))?;
        let value = HeaderValue::from_str(value)
            .map_err(|_| format!("the value of the header `{name}` is not valid"))?;
        request = request.header(name, value);
    }
    request
        .body(Full::new(Bytes::from(body)))
        .map_err(|error| format!("the request could not be built: {error}"))
}

async fn send<S>(io: S, request: Request<Full<Bytes>>) -> Result<Response, String>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(|error| format!("the HTTP handshake failed: {error}"))?;
    // The connection is driven beside the request; dropping the whole future (a cancelled
    // handoff) drops both and closes the socket.
    let connection = async move {
        let _ = connection.await;
        std::future::pending::<()>().await
    };
    let response = async move {
        let response = sender
            .send_request(request)
            .await
            .map_err(|error| format!("the request failed: {error}"))?;
        let status = response.status().as_u16();
        let body = Limited::new(response.into_body(), MAX_RESPONSE)
            .collect()
            .await
            .map_err(|error| format!("the answer could not be read: {error}"))?
            .to_bytes();
        Ok(Response { status, body })
    };
    tokio::select! {
        answer = response => answer,
        _ = connection => unreachable!("the connection future never completes"),
    }
}

#[cfg(feature = "rustls")]
mod tls {
    use std::sync::{Arc, OnceLock};

    use tokio::net::TcpStream;
    use tokio_rustls::TlsConnector;
    use tokio_rustls::client::TlsStream;
    use tokio_rustls::rustls::pki_types::ServerName;
    use tokio_rustls::rustls::{ClientConfig, RootCertStore};

    fn connector() -> Result<TlsConnector, String> {
        static CONNECTOR: OnceLock<Result<TlsConnector, String>> = OnceLock::new();
        CONNECTOR
            .get_or_init(|| {
                let mut roots = RootCertStore::empty();
                roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
                let provider = tokio_rustls::rustls::crypto::ring::default_provider();
                let mut config = ClientConfig::builder_with_provider(Arc::new(provider))
                    .with_safe_default_protocol_versions()
                    .map_err(|error| format!("TLS could not be set up: {error}"))?
                    .with_root_certificates(roots)
                    .with_no_client_auth();
                config.alpn_protocols = vec![b"http/1.1".to_vec()];
                Ok(TlsConnector::from(Arc::new(config)))
            })
            .clone()
    }

    pub(super) async fn connect(
        host: &str,
        tcp: TcpStream,
    ) -> Result<TlsStream<TcpStream>, String> {
        let name = ServerName::try_from(host.to_owned())
            .map_err(|error| format!("`{host}` is not a valid TLS server name: {error}"))?;
        connector()?
            .connect(name, tcp)
            .await
            .map_err(|error| format!("the TLS handshake with {host} failed: {error}"))
    }
}

#[cfg(not(feature = "rustls"))]
mod tls {
    use tokio::net::TcpStream;

    pub(super) async fn connect(host: &str, _tcp: TcpStream) -> Result<TcpStream, String> {
        Err(format!(
            "https://{host} needs TLS: build buril-team with its `rustls` feature, or use an \
             http:// URL (a local server)"
        ))
    }
}
