//! D-Bus server addresses as uidriver compares and hands them on. One rule, used by the sandbox
//! (the addresses it gives its apps and checks after a restart) and by the Linux backend (the
//! accessibility bus it connects to again after the bus came back).

/// `address` without its `guid=` keys. A guid pins one server instance: a client refuses a bus
/// at the same place that was started again. Where a restarted bus is expected, the place is
/// what counts. `unix:path=/r/bus_9,guid=ab12` → `unix:path=/r/bus_9`.
pub fn without_guid(address: &str) -> String {
    address
        .split(';')
        .map(|one| match one.split_once(':') {
            Some((transport, keys)) => {
                let kept: Vec<&str> = keys
                    .split(',')
                    .filter(|k| !k.starts_with("guid="))
                    .collect();
                format!("{transport}:{}", kept.join(","))
            }
            None => one.to_string(),
        })
        .collect::<Vec<_>>()
        .join(";")
}

#[cfg(test)]
mod tests {
    use super::without_guid;

    #[test]
    fn guids_are_dropped_from_addresses() {
        assert_eq!(
            without_guid("unix:path=/r/at-spi/bus_9,guid=ab12"),
            "unix:path=/r/at-spi/bus_9"
        );
        assert_eq!(
            without_guid("unix:guid=1,abstract=/x;tcp:host=h,port=1"),
            "unix:abstract=/x;tcp:host=h,port=1"
        );
        assert_eq!(without_guid("unix:path=/s"), "unix:path=/s");
    }
}
