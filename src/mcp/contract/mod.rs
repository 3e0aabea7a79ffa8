//! The contract: per-tool risk labels and schema-quality findings.
