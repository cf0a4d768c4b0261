/** Every id the extension contributes, declared once (must match package.json). */
export const Ids = {
  extension: 'bounded-evidence.bounded-evidence',
  commands: {
    openInspector: 'boundedEvidence.openInspector',
  },
  views: {
    inspectorPanel: 'boundedEvidence.inspector',
  },
} as const;
