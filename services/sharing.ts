import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { addDatasetMember, listDatasetMembers } from '../db/repositories/datasets';
import { findUserByEmail } from '../db/repositories/users';
import type { DatasetRole } from '../lib/accessPolicy';
import { invalid, notFound } from '../lib/errors';
import { requireDataset } from './datasetAccess';

export interface DatasetMemberView {
  email: string;
  role: DatasetRole;
}

/**
 * Grants a registered account a role on the dataset (the owner only); inviting a member again sets
 * their role. An unknown email is not found; the owner's own role is not the invitation's to change.
 */
export async function inviteToDataset(
  db: Db,
  datasetId: string,
  inviter: User,
  invitation: { email: string; role: Exclude<DatasetRole, 'owner'> },
): Promise<void> {
  await requireDataset(db, datasetId, inviter.id, 'share');
  const invitee = await findUserByEmail(db, invitation.email);
  if (!invitee) throw notFound('No registered account with this email');
  const members = await listDatasetMembers(db, datasetId);
  if (members.some((member) => member.user_id === invitee.id && member.role === 'owner')) {
    throw invalid("An owner's role cannot be changed by an invitation");
  }
  await addDatasetMember(db, datasetId, invitee.id, invitation.role);
}

/** The dataset's members and their roles (the owner only), owner first. */
export async function datasetMembers(db: Db, datasetId: string, caller: User): Promise<DatasetMemberView[]> {
  await requireDataset(db, datasetId, caller.id, 'share');
  return (await listDatasetMembers(db, datasetId)).map(({ email, role }) => ({ email, role }));
}
