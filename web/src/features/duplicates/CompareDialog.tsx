import { Dialog } from '../../components/Dialog';
import type { DuplicateMember, DuplicatePair } from './api';
import { fileSize, resolution } from './pairs';
import { PairReason } from './PairReason';

/** A copy beside the suggested keeper, both large, with the facts the keeper rule weighs. Escape closes. */
export function CompareDialog({ copy, keeper, pair, onClose }: { copy: DuplicateMember; keeper: DuplicateMember; pair: DuplicatePair | null; onClose(): void }) {
  return (
    <Dialog title={`${copy.file_name} beside the suggested keeper`} onClose={onClose} className="dup-compare">
      {pair && (
        <p>
          <PairReason pair={pair} mediaId={copy.media_id} members={[copy, keeper]} />
        </p>
      )}
      <div className="dup-compare-row">
        {[
          { member: keeper, role: 'suggested keeper' },
          { member: copy, role: 'this copy' },
        ].map(({ member, role }) => (
          <figure key={member.media_id}>
            <img src={member.media_uri} alt={`${role}: ${member.file_name}`} />
            <figcaption>
              <strong>{role}</strong>: {member.file_name}
              <br />
              {resolution(member)} · {fileSize(member.file_size)} · {member.format ?? 'format unknown'}
              {member.issues.length > 0 && (
                <>
                  <br />
                  issues: {member.issues.join(', ')}
                </>
              )}
            </figcaption>
          </figure>
        ))}
      </div>
    </Dialog>
  );
}
