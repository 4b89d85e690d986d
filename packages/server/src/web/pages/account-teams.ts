import type { TeamRecord } from '../../storage/team-store.js';
import { html, type SafeHtml } from '../html.js';

/**
 * The account page's teams: each team the user is a member of, the namespaces it owns (where
 * only its members publish new packages) and its other members. Changes go through
 * `pkg-registry team` or the HTTP API (`/-/pkg/v1/teams`).
 */
export function teamsSection(user: string, teams: readonly TeamRecord[]): SafeHtml {
  return html`<h2>Teams</h2>
    ${
      teams.length === 0
        ? html`<p class="muted">You are in no team.</p>`
        : html`<p>Only a team's members and the registry's administrators publish new packages in the namespaces it owns.</p>
            <table>
              <thead>
                <tr>
                  <th scope="col">Team</th>
                  <th scope="col">Namespaces</th>
                  <th scope="col">Other members</th>
                </tr>
              </thead>
              <tbody>
                ${teams.map(
                  (team) =>
                    html`<tr>
                      <td>${team.name}</td>
                      <td>${team.namespaces.length === 0 ? 'none' : list(team.namespaces)}</td>
                      <td>${others(user, team)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }`;
}

function list(namespaces: readonly string[]): SafeHtml[] {
  return namespaces.map((namespace, i) => html`${i > 0 ? ', ' : ''}<code>${namespace}</code>`);
}

function others(user: string, team: TeamRecord): string {
  const rest = team.members.filter((member) => member !== user);
  return rest.length === 0 ? 'none' : rest.join(', ');
}
