import type { CallDto, PartDto } from '../../src/shared/protocol.js';
import { outcomeOf } from '../callsModel.js';
import { append, h, replaceChildren } from '../dom.js';
import { count, exactAndHuman, exactBytes, localTime } from '../format.js';

export class Identity {
  readonly title: HTMLElement;
  readonly list: HTMLElement;

  constructor() {
    this.title = h('h2', { id: 'detail-title' });
    this.list = h('dl', { class: 'identity', 'aria-label': 'Identity' });
  }

  show(call: CallDto, part: PartDto): void {
    const outcome = outcomeOf(call);
    replaceChildren(
      this.title,
      part.name === 'result' ? `${call.tool} result` : `${part.name} of ${call.tool}`,
      h('span', { class: `badge outcome-${outcome.kind}`, id: 'detail-outcome', title: outcome.detail }, outcome.label),
      part.stored ? h('span', { class: 'badge' }, part.stored) : null,
    );
    const rows: [string, string, string?][] = [];
    if (part.handle) rows.push(['Handle', part.handle, 'id-handle']);
    if (part.sha256) {
      rows.push(['Artifact id', `artifact-${part.sha256}`]);
      rows.push(['sha256', part.sha256, 'id-sha']);
    }
    // A running call's size is what its streams hold so far (`soFar`), not the 0 of a result not yet written.
    rows.push(['Size', call.status === 'running' ? soFarText(0) : exactAndHuman(part.sizeBytes), 'id-size']);
    if (part.observedBytes !== undefined && part.observedBytes !== part.sizeBytes)
      rows.push([
        'Produced',
        `${exactBytes(part.observedBytes)}${part.truncated ? ' (capture stopped at its cap)' : ''}`,
      ]);
    // Binary content has no lines (a count of its newline bytes would say it has).
    if (part.lineCount !== undefined && !part.binary) rows.push(['Lines', count(part.lineCount), 'id-lines']);
    if (part.contentType) rows.push(['Content type', `${part.contentType}${part.binary ? ' (binary)' : ''}`]);
    rows.push(['Stored', part.stored ? `${part.stored}${part.readable ? '' : ' (not readable)'}` : '—']);
    rows.push(['Outcome', `${outcome.label}: ${outcome.detail}`, 'id-outcome']);
    rows.push([
      'Call',
      `${call.callId} · ${localTime(call.startedAt)}${call.finishedAt ? ` → ${localTime(call.finishedAt)}` : ''}`,
    ]);
    rows.push(['Run', call.runId]);
    if (call.argsSummary) rows.push(['Arguments', call.argsSummary]);
    if (call.errorMessage) rows.push(['Error', call.errorMessage]);
    this.list.replaceChildren();
    for (const [k, v, id] of rows) append(this.list, h('dt', {}, k), h('dd', id ? { id } : {}, v));
  }

  /** A running call's bytes so far, in its Size row. */
  soFar(bytes: number): void {
    const dd = this.list.querySelector('#id-size');
    if (dd) dd.textContent = soFarText(bytes);
  }
}

const soFarText = (bytes: number): string => `${exactAndHuman(bytes)} so far (running)`;
