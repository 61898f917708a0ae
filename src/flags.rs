//! Typed flag sets over the C bit masks: IOF channels and info directives.
//! The C boundary carries the integers; inside, a set of channels is a
//! `Channels`, so a channel set and a count cannot be mixed up.

use bitflags::bitflags;

use crate::abi::*;

bitflags! {
    /// A set of IOF channels (`pmix_iof_channel_t` bits).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct Channels: pmix_iof_channel_t {
        const STDIN = PMIX_FWD_STDIN_CHANNEL;
        const STDOUT = PMIX_FWD_STDOUT_CHANNEL;
        const STDERR = PMIX_FWD_STDERR_CHANNEL;
        const STDDIAG = PMIX_FWD_STDDIAG_CHANNEL;
        // Bits OpenPMIx reserves: kept as given, never interpreted.
        const _ = !0;
    }
}

impl Channels {
    /// The output channels a tool can pull, one at a time.
    pub const OUTPUTS: [Channels; 3] = [Channels::STDOUT, Channels::STDERR, Channels::STDDIAG];

    /// The set as the C type.
    pub fn raw(self) -> pmix_iof_channel_t {
        self.bits()
    }
}

impl From<pmix_iof_channel_t> for Channels {
    fn from(bits: pmix_iof_channel_t) -> Self {
        Channels::from_bits_retain(bits)
    }
}

bitflags! {
    /// The directives of one info (`pmix_info_directives_t` bits).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Directives: pmix_info_directives_t {
        const REQUIRED = PMIX_INFO_REQD;
        const ARRAY_END = PMIX_INFO_ARRAY_END;
        const PROCESSED = PMIX_INFO_REQD_PROCESSED;
        const QUALIFIER = PMIX_INFO_QUALIFIER;
        const PERSISTENT = PMIX_INFO_PERSISTENT;
        const RESERVED = PMIX_INFO_DIR_RESERVED;
        const _ = !0;
    }
}

impl From<pmix_info_directives_t> for Directives {
    fn from(bits: pmix_info_directives_t) -> Self {
        Directives::from_bits_retain(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_keep_unknown_bits_and_convert_back() {
        let c = Channels::from(PMIX_FWD_STDOUT_CHANNEL | 0x100);
        assert!(c.contains(Channels::STDOUT) && !c.contains(Channels::STDERR));
        assert_eq!(c.raw(), PMIX_FWD_STDOUT_CHANNEL | 0x100);
        assert_eq!(Channels::from(PMIX_FWD_ALL_CHANNELS) & Channels::STDIN, Channels::STDIN);
    }

    #[test]
    fn directives_read_their_bits() {
        let d = Directives::from(PMIX_INFO_REQD | PMIX_INFO_ARRAY_END);
        assert!(d.contains(Directives::REQUIRED | Directives::ARRAY_END));
        assert!(!d.intersects(Directives::QUALIFIER | Directives::PROCESSED));
    }
}
