//! The report's sections: which there are, in which order (`Section::ALL`), and the one
//! trait each format (Markdown, HTML, PDF) implements to write them. A new section is a
//! variant here and a method of `SectionWriter`: every format then fails to compile until it
//! writes it.

use super::model::Report;

/// The report's sections, in the order every format prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Summary,
    Config,
    Profile,
    People,
    Transcripts,
    Verdicts,
    Critique,
    Gates,
}

impl Section {
    pub(crate) const ALL: [Section; 8] = [
        Section::Summary,
        Section::Config,
        Section::Profile,
        Section::People,
        Section::Transcripts,
        Section::Verdicts,
        Section::Critique,
        Section::Gates,
    ];

    /// The section's heading.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Section::Summary => "Summary",
            Section::Config => "1. Agent configuration and sandbox provenance",
            Section::Profile => "2. Inferred purpose profile",
            Section::People => "3. Personas and scenarios",
            Section::Transcripts => "4. Transcripts",
            Section::Verdicts => "5. Judge verdicts and checks",
            Section::Critique => "6. Tool-usability critique",
            Section::Gates => "7. Gates and readiness",
        }
    }

    /// Its place in `ALL` (0: the summary), which HTML's contents use as the anchor `s<n>`.
    pub(crate) fn number(self) -> usize {
        self as usize
    }
}

/// One format's writer of each section into its output (`Out`: a `String`, or the PDF's
/// page writer). Each method writes its section's heading and body.
pub(crate) trait SectionWriter {
    type Out<'w>;

    fn summary(o: &mut Self::Out<'_>, r: &Report);
    fn config(o: &mut Self::Out<'_>, r: &Report);
    fn profile(o: &mut Self::Out<'_>, r: &Report);
    fn people(o: &mut Self::Out<'_>, r: &Report);
    fn transcripts(o: &mut Self::Out<'_>, r: &Report);
    fn verdicts(o: &mut Self::Out<'_>, r: &Report);
    fn critique(o: &mut Self::Out<'_>, r: &Report);
    fn gates(o: &mut Self::Out<'_>, r: &Report);

    /// Writes one section.
    fn write(o: &mut Self::Out<'_>, r: &Report, s: Section) {
        match s {
            Section::Summary => Self::summary(o, r),
            Section::Config => Self::config(o, r),
            Section::Profile => Self::profile(o, r),
            Section::People => Self::people(o, r),
            Section::Transcripts => Self::transcripts(o, r),
            Section::Verdicts => Self::verdicts(o, r),
            Section::Critique => Self::critique(o, r),
            Section::Gates => Self::gates(o, r),
        }
    }

    /// Writes every section, in `Section::ALL`'s order.
    fn write_all(o: &mut Self::Out<'_>, r: &Report) {
        for s in Section::ALL {
            Self::write(o, r, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_numbered_in_their_order_and_titled_once() {
        for (i, s) in Section::ALL.iter().enumerate() {
            assert_eq!(s.number(), i);
        }
        let mut titles: Vec<&str> = Section::ALL.iter().map(|s| s.title()).collect();
        assert!(
            titles[1..]
                .iter()
                .enumerate()
                .all(|(i, t)| t.starts_with(&format!("{}. ", i + 1)))
        );
        titles.dedup();
        assert_eq!(titles.len(), Section::ALL.len());
    }
}
