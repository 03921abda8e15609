//! Web origins for a policy's `[browser]` rules: the origin of a page URL
//! (`scheme://host:port`, the scheme's default port filled in, userinfo dropped) and the
//! patterns a policy file may write (`https://example.com`, `https://*.example.com`,
//! `http://127.0.0.1:*`, `file:`), parsed strictly so a malformed one is an error in the file
//! rather than a rule that matches nothing. Which rule applies is `policy.rs`'s job.

/// Where a page's content comes from: `scheme://host:port`, or a scheme alone for URLs that
/// have no host (`about:`, `data:`, `file:` pages with an empty host count as `file`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// scheme, host, port (the scheme's default when the URL gives none).
    Tuple(String, String, Option<u16>),
    /// A URL without `//`: its scheme.
    Opaque(String),
}

impl Origin {
    /// The origin of a URL; `None` when it has no scheme.
    pub(crate) fn of(url: &str) -> Option<Origin> {
        let (scheme, rest) = url.split_once(':')?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme.is_empty()
            || !scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        {
            return None;
        }
        let Some(rest) = rest.strip_prefix("//") else {
            return Some(Origin::Opaque(scheme));
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        let hostport = authority.rsplit('@').next().unwrap_or("");
        let (host, port) = split_host_port(hostport);
        let port = match port {
            Some(p) => Some(p.parse().ok()?),
            None => default_port(&scheme),
        };
        Some(Origin::Tuple(scheme, host.to_ascii_lowercase(), port))
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Opaque(s) => write!(f, "{s}:"),
            Origin::Tuple(s, h, Some(p)) if Some(*p) != default_port(s) => {
                write!(f, "{s}://{h}:{p}")
            }
            Origin::Tuple(s, h, _) => write!(f, "{s}://{h}"),
        }
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

/// `host:port` into its parts; `[v6]:port` keeps the brackets on the host.
fn split_host_port(s: &str) -> (&str, Option<&str>) {
    if s.starts_with('[') {
        return match s.find(']') {
            Some(end) => (&s[..=end], s[end + 1..].strip_prefix(':')),
            None => (s, None),
        };
    }
    match s.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (s, None),
    }
}

/// One origin pattern of `[browser]`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// `scheme:`: every URL of that scheme.
    Scheme(String),
    /// `scheme://host[:port]`; host `*` is any host, `*.d` any subdomain of d (not d itself);
    /// port `*` any port, none the scheme's default.
    Site {
        scheme: String,
        host: String,
        port: PortPattern,
    },
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum PortPattern {
    Default,
    Any,
    Is(u16),
}

pub(crate) fn parse_pattern(p: &str) -> Result<Pattern, String> {
    let p = p.trim().to_ascii_lowercase();
    let (scheme, rest) = p
        .split_once(':')
        .ok_or("not an origin: give scheme://host[:port] or scheme:")?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return Err("not an origin: the scheme is missing".into());
    }
    if rest.is_empty() {
        return Ok(Pattern::Scheme(scheme.into()));
    }
    let Some(rest) = rest.strip_prefix("//") else {
        return Err(format!(
            "give {scheme}: for every {scheme} URL, or {scheme}://host"
        ));
    };
    if rest.contains(['/', '?', '#', '@']) {
        return Err("an origin has no path, query or user: give scheme://host[:port]".into());
    }
    let (host, port) = split_host_port(rest);
    if host.is_empty() {
        return Err(format!("no host: give {scheme}: for every {scheme} URL"));
    }
    let wildcard_ok = host == "*"
        || host
            .strip_prefix("*.")
            .is_some_and(|d| !d.is_empty() && !d.contains('*'));
    if host.contains('*') && !wildcard_ok {
        return Err("a wildcard host is * or *.domain".into());
    }
    let port = match port {
        None => PortPattern::Default,
        Some("*") => PortPattern::Any,
        Some(n) => PortPattern::Is(n.parse().map_err(|_| format!("bad port {n:?}"))?),
    };
    Ok(Pattern::Site {
        scheme: scheme.into(),
        host: host.into(),
        port,
    })
}

pub(crate) fn pattern_matches(pattern: &str, origin: &Origin) -> bool {
    let Ok(p) = parse_pattern(pattern) else {
        return false;
    };
    match (p, origin) {
        (Pattern::Scheme(s), Origin::Tuple(os, _, _) | Origin::Opaque(os)) => s == *os,
        (Pattern::Site { .. }, Origin::Opaque(_)) => false,
        (Pattern::Site { scheme, host, port }, Origin::Tuple(os, oh, op)) => {
            let host_ok = match host.strip_prefix("*.") {
                _ if host == "*" => true,
                Some(domain) => oh.ends_with(&format!(".{domain}")),
                None => host == *oh,
            };
            let port_ok = match port {
                PortPattern::Any => true,
                PortPattern::Default => *op == default_port(&scheme),
                PortPattern::Is(n) => *op == Some(n),
            };
            scheme == *os && host_ok && port_ok
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_urls_origin_fills_in_the_default_port_and_drops_the_rest() {
        let o = |u: &str| Origin::of(u).map(|o| o.to_string());
        assert_eq!(
            o("HTTPS://Example.COM/a?b#c").as_deref(),
            Some("https://example.com")
        );
        assert_eq!(
            Origin::of("https://example.com:443/"),
            Origin::of("https://example.com/")
        );
        assert_eq!(
            o("http://127.0.0.1:8080/x").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert_eq!(o("http://[::1]:9/").as_deref(), Some("http://[::1]:9"));
        assert_eq!(
            o("https://u:p@bank.example/").as_deref(),
            Some("https://bank.example")
        );
        assert_eq!(o("data:text/html,x").as_deref(), Some("data:"));
        assert_eq!(o("file:///tmp/a.html").as_deref(), Some("file://"));
        assert_eq!(o("no scheme here"), None);
        assert_eq!(
            o("http://host:99999/"),
            None,
            "a port out of range is no origin"
        );
    }

    #[test]
    fn patterns_parse_strictly() {
        assert_eq!(parse_pattern("file:"), Ok(Pattern::Scheme("file".into())));
        assert_eq!(
            parse_pattern("http://[::1]:*"),
            Ok(Pattern::Site {
                scheme: "http".into(),
                host: "[::1]".into(),
                port: PortPattern::Any,
            })
        );
        for bad in [
            "*.example.com",
            "https://*x.example.com",
            "https://a/b",
            "https://:80",
        ] {
            assert!(parse_pattern(bad).is_err(), "{bad}");
        }
        let ipv6 = Origin::of("http://[::1]:5000/").unwrap();
        assert!(pattern_matches("http://[::1]:*", &ipv6));
        assert!(
            !pattern_matches("http://[::1]", &ipv6),
            "no port: the default only"
        );
    }
}
