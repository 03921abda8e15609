//! The one error type of this crate and its single mapping into core's published catalogue.
//!
//! Vision never sends input to an application, so every mapped error is `not_delivered`.

use std::time::Duration;

use uidriver_core::{Error, ErrorCode};

/// What went wrong while scaling, encoding, decoding or reading pixels.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VisionError {
    /// The pixel buffer does not match its stated size, or a size is zero.
    #[error("invalid image: {0}")]
    InvalidImage(String),
    /// PNG encoding failed.
    #[error("png encoding failed: {0}")]
    Encode(#[from] png::EncodingError),
    /// The bytes are not a PNG this crate can read.
    #[error("png decoding failed: {0}")]
    Decode(#[from] png::DecodingError),
    /// The tesseract program could not be started because it is not installed.
    #[error("tesseract not found ({program})")]
    TesseractMissing {
        /// The program name or path that was tried.
        program: String,
    },
    /// Tesseract runs but has no trained data for the requested language.
    #[error("tesseract has no data for language {lang:?}")]
    LanguageMissing {
        /// The language code asked for (`eng`).
        lang: String,
    },
    /// Tesseract did not finish in time and was killed.
    #[error("ocr did not finish within {0:?}")]
    Timeout(Duration),
    /// Tesseract exited with an error.
    #[error("tesseract failed ({status}): {stderr}")]
    Tesseract {
        /// Exit status as printed by the OS.
        status: String,
        /// The last line tesseract wrote to stderr.
        stderr: String,
    },
    /// Talking to the tesseract child process failed.
    #[error("tesseract i/o: {0}")]
    Io(#[from] std::io::Error),
    /// A blocking pixel task panicked or was cancelled.
    #[error("pixel task failed: {0}")]
    Task(String),
}

impl From<VisionError> for Error {
    fn from(e: VisionError) -> Self {
        let message = e.to_string();
        match e {
            VisionError::TesseractMissing { .. } => {
                Error::new(ErrorCode::BackendUnavailable, message)
                    .with_hint("Install OCR: apt-get install tesseract-ocr tesseract-ocr-eng (or observe in semantic mode).")
            }
            VisionError::LanguageMissing { lang } => {
                Error::new(ErrorCode::BackendUnavailable, message)
                    .with_hint(format!("Install the language data: apt-get install tesseract-ocr-{lang}."))
            }
            VisionError::Timeout(_) => Error::new(ErrorCode::Timeout, message)
                .with_hint("OCR of a large image is slow: observe a smaller root, or raise the OCR timeout."),
            VisionError::InvalidImage(_)
            | VisionError::Encode(_)
            | VisionError::Decode(_)
            | VisionError::Tesseract { .. }
            | VisionError::Io(_)
            | VisionError::Task(_) => Error::new(ErrorCode::Internal, message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidriver_core::Delivery;

    #[test]
    fn maps_to_catalogued_codes_and_never_claims_delivery() {
        let missing: Error = VisionError::TesseractMissing {
            program: "tesseract".into(),
        }
        .into();
        assert_eq!(missing.code, ErrorCode::BackendUnavailable);
        assert!(missing.hint.contains("apt-get install tesseract-ocr"));
        assert_eq!(missing.delivery, Delivery::NotDelivered);

        let lang: Error = VisionError::LanguageMissing { lang: "deu".into() }.into();
        assert!(lang.hint.contains("tesseract-ocr-deu"));

        let t: Error = VisionError::Timeout(Duration::from_secs(10)).into();
        assert_eq!(t.code, ErrorCode::Timeout);

        let i: Error = VisionError::InvalidImage("0x0".into()).into();
        assert_eq!(i.code, ErrorCode::Internal);
    }
}
