import { z } from 'zod';
import { DATASET_ROLES, GRANTABLE_ROLES } from '../../lib/accessPolicy';
import { defineRoute } from '../routeSpec';
import { datasetIdParams } from './common';

const emailMessage = 'grant_to_user_email must be an email address';
const inviteBody = z.object(
  {
    grant_to_user_email: z.string({ message: 'grant_to_user_email is required' }).trim().max(320, emailMessage).pipe(z.email(emailMessage)),
    role: z
      .enum(GRANTABLE_ROLES, { message: 'role must be viewer or editor' })
      .default('viewer')
      .meta({ description: 'Beyond the spec: the role granted (default viewer); inviting a member again sets their role' }),
  },
  { message: 'body must be {"grant_to_user_email": "..."}' },
);

export const datasetMemberSchema = z.object({ email: z.string(), role: z.enum(DATASET_ROLES) }).meta({ id: 'DatasetMember' });

const ownerOnly: [403, string] = [403, "Not the dataset's owner (sharing needs owner access)"];

export const sharingRoutes = {
  invite: defineRoute({
    method: 'put',
    path: '/manage/:dataset_id/invite',
    tag: 'sharing',
    summary: 'Share the dataset with a registered account',
    description: 'Owner only. Grants viewer (default) or editor; the owner keeps their role.',
    auth: 'user',
    datasetState: 'any',
    request: { params: datasetIdParams, body: inviteBody },
    responses: { 200: { description: 'Shared', schema: z.null() } },
    errors: [
      [400, "The invitee is the dataset's owner"],
      ownerOnly,
      [404, 'Dataset not found, or no registered account with this email'],
      [429, 'Too many failed invitations from this user or address (counted like failed logins): Retry-After says when to try again'],
    ],
  }),
  members: defineRoute({
    method: 'get',
    path: '/manage/:dataset_id/share',
    tag: 'sharing',
    summary: "The dataset's members and their roles, owner first",
    auth: 'user',
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Members', schema: z.array(datasetMemberSchema) } },
    errors: [ownerOnly, [404, 'Dataset not found']],
  }),
};
