/** The cast every scenario draws from: agents, the numbers calls come in on, and callers. */

export interface Agent {
  readonly name: string;
  /** Canonical (`+91...`). */
  readonly number: string;
  readonly extension: string;
}

export const AGENTS: readonly Agent[] = [
  { name: 'Asha Rao', number: '+919876500001', extension: '101' },
  { name: 'Vikram Shah', number: '+919876500002', extension: '102' },
  { name: 'Meera Iyer', number: '+919876500003', extension: '103' },
  { name: 'Rahul Verma', number: '+919876500004', extension: '104' },
  { name: 'Fatima Khan', number: '+919876500005', extension: '105' },
  { name: 'Arjun Nair', number: '+919876500006', extension: '106' },
  { name: 'Priya Das', number: '+919876500007', extension: '107' },
  { name: 'Kabir Singh', number: '+919876500008', extension: '108' },
];

/** The numbers customers dial. The first is the one the busy evening's spike hits. */
export const DIDS: readonly string[] = [
  '+918000000001',
  '+918000000002',
  '+918000000003',
  '+918000000004',
];

export const GATEWAYS = ['Razorpay', 'Instamojo'] as const;
export type Gateway = (typeof GATEWAYS)[number];

export const USER_ID = 4021;
export const SIP_DOMAIN = 'acme.sip.example.net';
