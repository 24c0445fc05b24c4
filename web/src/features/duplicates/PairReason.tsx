import type { DuplicateMember, DuplicatePair } from './api';
import { pairSides, TIER_TEXT } from './pairs';

/** A pair's tier as a badge and its reason, said from one copy's side. */
export function PairReason({ pair, mediaId, members }: { pair: DuplicatePair; mediaId: string; members: DuplicateMember[] }) {
  return (
    <span className="dup-why" data-tier={pair.tier}>
      <span className={`dup-tier ${pair.tier}`}>{TIER_TEXT[pair.tier]}</span> {pair.reason} <span className="muted">({pairSides(pair, mediaId, members)})</span>
    </span>
  );
}
