/**
 * What the sandbox organization is made of: an Egyptian company's departments, staff, cards, and
 * the merchants its people pay. Amounts are in EGP (converted to cents by the generator).
 */
import type { Category } from '../domain/categories.js';

export const SANDBOX_DEPARTMENTS = ['Finance', 'Operations', 'Sales', 'Engineering', 'Marketing', 'Logistics'] as const;
export type SandboxDepartment = (typeof SANDBOX_DEPARTMENTS)[number];

export interface SandboxPerson {
  readonly fullName: string;
  readonly department: SandboxDepartment | null;
  readonly externalIds: readonly string[];
}

/** Some people carry up to three ids of the partner's own systems, some none; two have no department. */
export const SANDBOX_PEOPLE: readonly SandboxPerson[] = [
  { fullName: 'Mariam Adel', department: 'Finance', externalIds: ['EMP-1042'] },
  { fullName: 'Omar Farouk', department: 'Operations', externalIds: ['EMP-0877', 'CC-OPS-12'] },
  { fullName: 'Nour El-Sayed', department: null, externalIds: [] },
  { fullName: 'Karim Mostafa', department: 'Sales', externalIds: ['EMP-1130', 'CC-SAL-03', 'SF-00912'] },
  { fullName: 'Salma Hassan', department: 'Engineering', externalIds: ['EMP-0954'] },
  { fullName: 'Youssef Ibrahim', department: 'Logistics', externalIds: ['EMP-1201', 'CC-LOG-07'] },
  { fullName: 'Habiba Mahmoud', department: 'Marketing', externalIds: [] },
  { fullName: 'Ahmed Naguib', department: 'Operations', externalIds: ['EMP-0711'] },
  { fullName: 'Laila Soliman', department: 'Finance', externalIds: ['EMP-1310', 'CC-FIN-01'] },
  { fullName: 'Tarek Abdel Rahman', department: 'Sales', externalIds: [] },
  { fullName: 'Dina Khaled', department: null, externalIds: ['CTR-0042'] },
  { fullName: 'Mostafa Gamal', department: 'Logistics', externalIds: ['EMP-0689'] },
  { fullName: 'Rana Fathy', department: 'Engineering', externalIds: ['EMP-1377'] },
  { fullName: 'Hany Shawky', department: 'Marketing', externalIds: ['EMP-1005', 'CC-MKT-02'] },
];

/** The person who receives the partner's fee records. */
export const FEE_PERSON_INDEX = 0;

export type SandboxCardKind = 'plain' | 'approvalBased' | 'notActivated';

export interface SandboxCard {
  readonly holder: number;
  readonly nickname: string;
  readonly kind: SandboxCardKind;
  /** EGP. Plain: daily, monthly, atm. Approval-based: the approved amount. */
  readonly limitsEgp:
    { readonly daily: number; readonly monthly: number; readonly atm: number } | { readonly approvalBased: number };
  /** Categories this card is mostly used for. */
  readonly profile: readonly Category[];
  /** Leave this card close to its limit today (a few percent left). */
  readonly nearLimit?: boolean;
}

export const SANDBOX_CARDS: readonly SandboxCard[] = [
  {
    holder: 0,
    nickname: 'Travel and client visits',
    kind: 'plain',
    limitsEgp: { daily: 25_000, monthly: 150_000, atm: 20_000 },
    profile: ['TRAVEL', 'HOSPITALITY', 'TRANSPORTATION', 'FOOD_BEVERAGE'],
  },
  {
    holder: 1,
    nickname: 'Procurement',
    kind: 'approvalBased',
    limitsEgp: { approvalBased: 250_000 },
    profile: ['RETAIL', 'E_COMMERCE', 'TECHNOLOGY', 'CONSTRUCTION', 'MANUFACTURING'],
  },
  {
    holder: 3,
    nickname: 'Sales entertainment',
    kind: 'plain',
    limitsEgp: { daily: 10_000, monthly: 60_000, atm: 5_000 },
    profile: ['FOOD_BEVERAGE', 'ENTERTAINMENT', 'HOSPITALITY'],
    nearLimit: true,
  },
  {
    holder: 4,
    nickname: 'Software subscriptions',
    kind: 'plain',
    limitsEgp: { daily: 50_000, monthly: 200_000, atm: 2_000 },
    profile: ['TECHNOLOGY', 'DESIGN', 'MEDIA', 'EDUCATION'],
  },
  {
    holder: 5,
    nickname: 'Fleet fuel',
    kind: 'plain',
    limitsEgp: { daily: 8_000, monthly: 120_000, atm: 10_000 },
    profile: ['FUEL', 'AUTOMOTIVE', 'TOWING', 'LOGISTICS'],
  },
  {
    holder: 6,
    nickname: 'Marketing ads',
    kind: 'approvalBased',
    limitsEgp: { approvalBased: 180_000 },
    profile: ['MARKETING', 'MEDIA', 'ART', 'DESIGN'],
    nearLimit: true,
  },
  {
    holder: 7,
    nickname: 'Warehouse petty spend',
    kind: 'plain',
    limitsEgp: { daily: 6_000, monthly: 40_000, atm: 15_000 },
    profile: ['RETAIL', 'FOOD_BEVERAGE', 'UTILITIES', 'CONSTRUCTION'],
    nearLimit: true,
  },
  {
    holder: 8,
    nickname: 'Office and utilities',
    kind: 'plain',
    limitsEgp: { daily: 30_000, monthly: 250_000, atm: 10_000 },
    profile: ['UTILITIES', 'REAL_ESTATE', 'INSURANCE', 'GOVERNMENT', 'LEGAL', 'PROFESSIONAL_SERVICES'],
  },
  {
    holder: 9,
    nickname: 'Field sales',
    kind: 'plain',
    limitsEgp: { daily: 12_000, monthly: 80_000, atm: 8_000 },
    profile: ['TRANSPORTATION', 'FOOD_BEVERAGE', 'FUEL', 'HOSPITALITY'],
  },
  {
    holder: 11,
    nickname: 'Deliveries',
    kind: 'plain',
    limitsEgp: { daily: 7_500, monthly: 90_000, atm: 12_000 },
    profile: ['LOGISTICS', 'FUEL', 'TRANSPORTATION', 'AUTOMOTIVE'],
  },
  {
    holder: 12,
    nickname: 'Field engineering',
    kind: 'plain',
    limitsEgp: { daily: 15_000, monthly: 100_000, atm: 10_000 },
    profile: ['ENGINEERING', 'ENERGY', 'TECHNOLOGY', 'MEDICAL', 'PHARMACEUTICAL'],
  },
  {
    holder: 13,
    nickname: 'Events and sponsorships',
    kind: 'approvalBased',
    limitsEgp: { approvalBased: 400_000 },
    profile: ['ENTERTAINMENT', 'CHARITY', 'MEMBERSHIP', 'HOSPITALITY', 'AGRICULTURE'],
  },
  {
    holder: 2,
    nickname: 'New hire card',
    kind: 'notActivated',
    limitsEgp: { daily: 2_000, monthly: 10_000, atm: 1_000 },
    profile: [],
  },
  {
    holder: 10,
    nickname: 'Contractor expenses',
    kind: 'notActivated',
    limitsEgp: { approvalBased: 30_000 },
    profile: [],
  },
  {
    holder: 0,
    nickname: 'Replacement card',
    kind: 'notActivated',
    limitsEgp: { daily: 25_000, monthly: 150_000, atm: 20_000 },
    profile: [],
  },
  {
    holder: 9,
    nickname: 'Fitness and wellbeing',
    kind: 'plain',
    limitsEgp: { daily: 5_000, monthly: 20_000, atm: 1_000 },
    profile: ['FITNESS', 'MEDICAL', 'CLOTHING', 'EDUCATION'],
  },
];

export interface SandboxMerchant {
  readonly name: string;
  readonly category: Category;
  /** Typical amount range in EGP. */
  readonly minEgp: number;
  readonly maxEgp: number;
}

const m = (name: string, category: Category, minEgp: number, maxEgp: number): SandboxMerchant => ({
  name,
  category,
  minEgp,
  maxEgp,
});

/** Card merchants, by category: real Egyptian (or Egypt-serving) businesses and plausible amounts. */
export const CARD_MERCHANTS: readonly SandboxMerchant[] = [
  m('Talabat', 'FOOD_BEVERAGE', 120, 1_400),
  m('Costa Coffee Zamalek', 'FOOD_BEVERAGE', 85, 600),
  m('Zooba Zamalek', 'FOOD_BEVERAGE', 150, 1_200),
  m('Abou El Sid Garden City', 'FOOD_BEVERAGE', 600, 4_500),
  m('Cilantro Maadi', 'FOOD_BEVERAGE', 70, 450),
  m('Carrefour Maadi City Centre', 'RETAIL', 350, 6_500),
  m('Seoudi Market Zamalek', 'RETAIL', 200, 3_800),
  m('Spinneys Sheikh Zayed', 'RETAIL', 300, 5_200),
  m('Cairo Duty Free Terminal 3', 'RETAIL', 400, 9_000),
  m('IKEA Cairo Festival City', 'RETAIL', 1_500, 35_000),
  m('Uber Egypt', 'TRANSPORTATION', 45, 650),
  m('Careem Egypt', 'TRANSPORTATION', 50, 600),
  m('Swvl', 'TRANSPORTATION', 30, 250),
  m('Go Bus', 'TRANSPORTATION', 180, 900),
  m('Vodafone Egypt', 'UTILITIES', 150, 3_500),
  m('Orange Egypt', 'UTILITIES', 150, 2_800),
  m('WE Telecom Egypt', 'UTILITIES', 300, 4_000),
  m('North Cairo Electricity Distribution', 'UTILITIES', 900, 12_000),
  m('Misr Petroleum', 'FUEL', 350, 2_400),
  m('Wataniya Petroleum', 'FUEL', 300, 2_200),
  m('TotalEnergies Egypt', 'FUEL', 400, 2_600),
  m('EgyptAir', 'TRAVEL', 2_800, 38_000),
  m('Nile Air', 'TRAVEL', 2_200, 16_000),
  m('Booking.com', 'TRAVEL', 2_500, 22_000),
  m('Marriott Mena House', 'HOSPITALITY', 4_500, 28_000),
  m('Steigenberger Hotel El Tahrir', 'HOSPITALITY', 3_200, 18_000),
  m('Hilton Alexandria Corniche', 'HOSPITALITY', 3_000, 16_500),
  m('Amazon.eg', 'E_COMMERCE', 250, 14_000),
  m('Noon Egypt', 'E_COMMERCE', 200, 12_000),
  m('Jumia Egypt', 'E_COMMERCE', 150, 8_500),
  m('B.TECH', 'TECHNOLOGY', 1_200, 45_000),
  m('Raya Shop', 'TECHNOLOGY', 900, 30_000),
  m('Microsoft Azure', 'TECHNOLOGY', 1_500, 22_000),
  m('Google Workspace', 'TECHNOLOGY', 600, 6_000),
  m('Cleopatra Hospital', 'MEDICAL', 800, 9_500),
  m('Al Borg Laboratories', 'MEDICAL', 300, 2_800),
  m('El Ezaby Pharmacy', 'PHARMACEUTICAL', 60, 1_800),
  m('Seif Pharmacies', 'PHARMACEUTICAL', 50, 1_500),
  m('Aramex Egypt', 'LOGISTICS', 120, 3_500),
  m('Bosta', 'LOGISTICS', 60, 1_200),
  m('DHL Express Egypt', 'LOGISTICS', 450, 7_500),
  m('British Council Egypt', 'EDUCATION', 2_500, 14_000),
  m('AUC School of Continuing Education', 'EDUCATION', 3_000, 18_000),
  m('Vox Cinemas Mall of Egypt', 'ENTERTAINMENT', 240, 2_400),
  m('Cairo Opera House', 'ENTERTAINMENT', 300, 3_000),
  m("Gold's Gym Egypt", 'FITNESS', 900, 6_500),
  m('Town Team', 'CLOTHING', 450, 3_500),
  m('LC Waikiki Egypt', 'CLOTHING', 300, 2_800),
  m('Ghabbour Auto Service', 'AUTOMOTIVE', 1_200, 18_000),
  m('Toyota Egypt Service Centre', 'AUTOMOTIVE', 1_500, 14_000),
  m('Egypt Road Assist Towing', 'TOWING', 600, 3_200),
  m('Fawry Government Services', 'GOVERNMENT', 100, 4_500),
  m('Egyptian Tax Authority e-Payment', 'GOVERNMENT', 500, 25_000),
  m('Allianz Egypt', 'INSURANCE', 1_500, 20_000),
  m('Misr Insurance', 'INSURANCE', 1_200, 16_000),
  m('Matouk Bassiouny & Hennawy', 'LEGAL', 5_000, 40_000),
  m('Meta Ads', 'MARKETING', 2_000, 30_000),
  m('Google Ads', 'MARKETING', 2_000, 35_000),
  m('Anghami', 'MEDIA', 60, 600),
  m('Shahid VIP', 'MEDIA', 90, 900),
  m('Al-Ahram Subscriptions', 'MEDIA', 150, 1_800),
  m('Gezira Sporting Club', 'MEMBERSHIP', 2_500, 15_000),
  m('AmCham Egypt', 'MEMBERSHIP', 3_000, 12_000),
  m('Egyptian Food Bank', 'CHARITY', 500, 10_000),
  m('Magdi Yacoub Heart Foundation', 'CHARITY', 500, 12_000),
  m('Canva', 'DESIGN', 300, 2_500),
  m('Adobe', 'DESIGN', 900, 6_000),
  m('Townhouse Gallery', 'ART', 1_000, 15_000),
  m('El Sewedy Electric', 'MANUFACTURING', 2_000, 40_000),
  m('Ahmed Ezz Steel Trading', 'CONSTRUCTION', 3_000, 45_000),
  m('Kemet Building Supplies', 'CONSTRUCTION', 800, 12_000),
  m('KarmSolar', 'ENERGY', 2_500, 30_000),
  m('Dar Al-Handasah', 'ENGINEERING', 4_000, 40_000),
  m('Regus Smart Village', 'REAL_ESTATE', 4_000, 30_000),
  m('Valu', 'FINANCIAL_SERVICES', 150, 3_000),
  m('Ernst & Young Egypt', 'PROFESSIONAL_SERVICES', 5_000, 45_000),
  m('Dina Farms Store', 'AGRICULTURE', 150, 2_500),
  m('Khan El Khalili Bazaar', 'OTHER', 100, 2_500),
];

/** ATM withdrawals: category CASH, round amounts. */
export const ATM_MERCHANTS: readonly string[] = [
  'NBE ATM Zamalek',
  'NBE ATM Tahrir Square',
  'CIB ATM Nile City Towers',
  'Banque Misr ATM Maadi',
  'QNB Alahli ATM New Cairo',
  'Banque du Caire ATM Heliopolis',
];

/** Cash expenses paid out of pocket or from a cash advance. */
export const CASH_MERCHANTS: readonly SandboxMerchant[] = [
  m('Uber Egypt', 'TRANSPORTATION', 60, 450),
  m('Cairo taxi', 'TRANSPORTATION', 40, 300),
  m('Cairo Metro', 'TRANSPORTATION', 8, 20),
  m('Koshary Abou Tarek', 'FOOD_BEVERAGE', 60, 400),
  m('El Abd Patisserie', 'FOOD_BEVERAGE', 90, 800),
  m('Parking, Cairo Festival City', 'TRANSPORTATION', 20, 60),
  m('Stationery shop, Dokki', 'RETAIL', 40, 900),
  m('Courier tip', 'LOGISTICS', 20, 150),
  m('Shahr El Aqari notary', 'GOVERNMENT', 150, 1_500),
  m('Souq El Goma hardware', 'CONSTRUCTION', 100, 2_000),
];

/** The partner's own charges: monthly platform fee, card issuance, ATM and FX fees. */
export const FEE_KINDS: readonly { readonly description: string; readonly minEgp: number; readonly maxEgp: number }[] =
  [
    { description: 'Monthly platform fee', minEgp: 1_500, maxEgp: 1_500 },
    { description: 'Card issuance fee', minEgp: 150, maxEgp: 150 },
    { description: 'ATM withdrawal fee', minEgp: 25, maxEgp: 40 },
    { description: 'Foreign currency conversion fee', minEgp: 30, maxEgp: 600 },
  ];

export const FEE_MERCHANT = 'Partner Payments';

export const SANDBOX_TAGS = [
  'Client visit',
  'Team offsite',
  'Recurring',
  'Reimbursable',
  'Project Nile',
  'Quarter end',
] as const;

export const CARD_NOTES = [
  'Lunch with the Nile Delta Consulting team.',
  'Receipt uploaded to the expense tool.',
  'Split with the Alexandria branch.',
  'Approved by the department head in advance.',
  'Annual renewal.',
] as const;

export const CASH_DESCRIPTIONS = [
  'Paid in cash, receipt attached.',
  'Taxi from Cairo International Airport, paid in cash.',
  'Petty cash for the warehouse.',
  'Cash advance for a site visit in 6th of October City.',
  'Courier and parking during the Alexandria delivery run.',
] as const;
