import { privateRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { userOfPath } from './lookup';
import { describeUser } from './me';

/** `GET /api/users/@me/` (and `/users/@me/`): the caller, their projects and organizations. */
export const retrieveUser = privateRoute(async ({ singleTable, event, caller }) =>
  json(200, await describeUser(singleTable, userOfPath(event, caller.user))),
);
