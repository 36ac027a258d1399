//! One way to call a JSON search API: build the request (the key in a
//! header, parameters in the query or a JSON body, `Accept:
//! application/json`), send it through [`HttpClient`] (time budget, body
//! cap), map the status with [`status::check`], and parse the body into a
//! typed answer ([`Fetched::json`]: a `Parse` error that quotes the start
//! of the body). Brave, Exa, Tavily and SearXNG all call through here.

use ferret_core::EngineError;
use reqwest::RequestBuilder;
use reqwest::header::{ACCEPT, AUTHORIZATION};
use serde::Serialize;
use serde::de::DeserializeOwned;
use url::Url;

use super::{Fetched, HttpClient, Service, status};

/// How a call carries the API key.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ApiKey<'a> {
    /// No key (a self-hosted service).
    None,
    /// In a named header (`X-Subscription-Token`, `x-api-key`).
    Header(&'static str, &'a str),
    /// As `Authorization: Bearer <key>`.
    Bearer(&'a str),
}

/// Adds the key and `Accept: application/json` to a request.
fn with_key(request: RequestBuilder, key: ApiKey<'_>) -> RequestBuilder {
    let request = match key {
        ApiKey::None => request,
        ApiKey::Header(name, value) => request.header(name, value),
        ApiKey::Bearer(value) => request.header(AUTHORIZATION, format!("Bearer {value}")),
    };
    request.header(ACCEPT, "application/json")
}

/// A `GET url?params` request.
pub(crate) fn get(
    http: &HttpClient,
    url: &Url,
    params: &[(&str, String)],
    key: ApiKey<'_>,
) -> RequestBuilder {
    with_key(http.get(url.clone()).query(params), key)
}

/// A `POST url` request with a JSON body.
pub(crate) fn post<B: Serialize + ?Sized>(
    http: &HttpClient,
    url: &Url,
    body: &B,
    key: ApiKey<'_>,
) -> RequestBuilder {
    with_key(http.post(url.clone()), key).json(body)
}

/// The typed answer of a finished exchange: the status mapped to an
/// [`EngineError`], then the body parsed as `T`.
pub(crate) fn answer<T: DeserializeOwned>(
    fetched: &Fetched,
    service: &Service,
) -> Result<T, EngineError> {
    status::check(fetched, service)?;
    fetched.json(service)
}

/// Sends `request` and reads its typed answer ([`answer`]).
pub(crate) async fn call<T: DeserializeOwned>(
    http: &HttpClient,
    request: RequestBuilder,
    service: &Service,
) -> Result<T, EngineError> {
    let fetched = http.send(request).await?;
    answer(&fetched, service)
}
