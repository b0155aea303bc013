/* known_providers.c - the well-known provider table (known_providers.h).
 *
 * Sources: each provider's own manifest (its <provider name= guid=>, as published in
 * Microsoft's documentation, in the SDK's samples, or exported by `wevtutil gp`/`logman query
 * providers` and quoted in public documentation) - only GUIDs whose name is confirmed by such a
 * public text are listed.  Sorted by name for reading; the lookup sorts a copy by GUID. */
#include "known_providers.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "etl_format.h"

typedef struct known {
    const char *guid;
    const char *name;
} known;

static const known table[] = {
    {"2a576b87-09a7-520e-c21a-4942f0271d67", "Microsoft-Antimalware-Scan-Interface"},
    {"57277741-3638-4a4b-bdba-0ac6e45da56c", "Microsoft-JScript"},
    {"cbda4dbf-8d5d-4f69-9578-be14aa540d22", "Microsoft-Windows-AppLocker"},
    {"ef1cc15b-46c1-414e-bb95-e76b077bd51e", "Microsoft-Windows-Bits-Client"},
    {"5bbca4a8-b209-48dc-a8c7-b23d3e5216fb", "Microsoft-Windows-CAPI2"},
    {"4ee76bd8-3cf4-44a0-a0ac-3937643e37a3", "Microsoft-Windows-CodeIntegrity"},
    {"bf406804-6afa-46e7-8a48-6c357e1d6d61", "Microsoft-Windows-COMRuntime"},
    {"89fe8f40-cdce-464e-8217-15ef97d4c7c3", "Microsoft-Windows-Crypto-DPAPI"},
    {"15a7a4f8-0072-4eab-abad-f98a4d666aed", "Microsoft-Windows-Dhcp-Client"},
    {"cfc18ec0-96b1-4eba-961b-622caee05b0a", "Microsoft-Windows-Diagnostics-Performance"},
    {"1c95126e-7eea-49a9-a3fe-a378b03ddb4d", "Microsoft-Windows-DNS-Client"},
    {"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", "Microsoft-Windows-DotNETRuntime"},
    {"763fd754-7086-4dfe-95eb-c01a46faf4ca", "Microsoft-Windows-DotNETRuntimePrivate"},
    {"a669021c-c450-4609-a035-5af59af4df18", "Microsoft-Windows-DotNETRuntimeRundown"},
    {"cc2bcbba-16b6-4cf3-8990-d74c2e8af500", "Microsoft-Windows-DotNETRuntimeStress"},
    {"802ec45a-1e99-4b83-9920-87c98277ba9d", "Microsoft-Windows-DxgKrnl"},
    {"ca11c036-0102-4a2d-a6ad-f03cfed5d3c9", "Microsoft-Windows-DXGI"},
    {"fc65ddd8-d6ef-4962-83d5-6e5cfe9ce148", "Microsoft-Windows-Eventlog"},
    {"aea1b4fa-97d1-45f2-a64c-4d69fffd92c9", "Microsoft-Windows-GroupPolicy"},
    {"dd5ef90a-6398-47a4-ad34-4dcecdef795f", "Microsoft-Windows-HttpService"},
    {"315a8872-923e-4ea2-9889-33cd4754bf64", "Microsoft-Windows-Immersive-Shell"},
    {"e02a841c-75a3-4fa7-afc8-ae09cf9b7f23", "Microsoft-Windows-Kernel-Audit-API-Calls"},
    {"15ca44ff-4d7a-4baa-bba5-0998955e531e", "Microsoft-Windows-Kernel-Boot"},
    {"b675ec37-bdb6-4648-bc92-f3fdc74d3ca2", "Microsoft-Windows-Kernel-EventTracing"},
    {"edd08927-9cc4-4e65-b970-c2560fb5c289", "Microsoft-Windows-Kernel-File"},
    {"a68ca8b7-004f-d7b6-a698-07e2de0f1f5d", "Microsoft-Windows-Kernel-General"},
    {"d1d93ef7-e1f2-4f45-9943-03d245fe6c00", "Microsoft-Windows-Kernel-Memory"},
    {"7dd42a49-5329-4832-8dfd-43d979153a88", "Microsoft-Windows-Kernel-Network"},
    {"9c205a39-1250-487d-abd7-e831c6290539", "Microsoft-Windows-Kernel-PnP"},
    {"331c3b3a-2005-44c2-ac5e-77220c37d6b4", "Microsoft-Windows-Kernel-Power"},
    {"5322d61a-9efa-4bc3-a3f9-14be95c144f8", "Microsoft-Windows-Kernel-Prefetch"},
    {"22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716", "Microsoft-Windows-Kernel-Process"},
    {"0f67e49f-fe51-4e9f-b490-6f2948cc6027", "Microsoft-Windows-Kernel-Processor-Power"},
    {"70eb4f03-c1de-4f73-a051-33d13d5413bd", "Microsoft-Windows-Kernel-Registry"},
    {"199fe037-2b82-40a9-82ac-e1d46c792b99", "Microsoft-Windows-LSA"},
    {"2ed6006e-4729-4609-b423-3ee7bcd678ef", "Microsoft-Windows-NDIS-PacketCapture"},
    {"cdead503-17f5-4a3e-b7ae-df8cc2902eb9", "Microsoft-Windows-NDIS"},
    {"314de49f-ce63-4779-ba2b-d616f6963a88", "Microsoft-Windows-NCSI"},
    {"fbcfac3f-8459-419f-8e48-1f0b49cdb85e", "Microsoft-Windows-NetworkProfile"},
    {"3ff37a1c-a68d-4d6e-8c9b-f79e8b16c482", "Microsoft-Windows-Ntfs"},
    {"4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac", "Microsoft-Windows-PktMon"},
    {"a0c1853b-5c40-4b15-8766-3cf1c58f985a", "Microsoft-Windows-PowerShell"},
    {"6ad52b32-d609-4be9-ae07-ce8dae937e39", "Microsoft-Windows-RPC"},
    {"54849625-5478-4994-a5ba-3e3b0328c30d", "Microsoft-Windows-Security-Auditing"},
    {"98e6cfcb-ee0a-41e0-a57b-622d4e1b30b1", "Microsoft-Windows-Security-Kerberos"},
    {"fae10392-f0af-4ac0-b8ff-9f4d920c3cdf", "Microsoft-Windows-Security-Mitigations"},
    {"e5ba83f6-07d0-46b1-8bc7-7e669a1d31dc", "Microsoft-Windows-Security-Netlogon"},
    {"0063715b-eeda-4007-9429-ad526f62696e", "Microsoft-Windows-Services"},
    {"30336ed4-e327-447c-9de0-51b652c86108", "Microsoft-Windows-Shell-Core"},
    {"988c59c5-0a1c-45b6-a555-0c62276e327d", "Microsoft-Windows-SMBClient"},
    {"d48ce617-33a2-4bc3-a5c7-11aa4f29619e", "Microsoft-Windows-SMBServer"},
    {"c4636a1e-7986-4646-bf10-7bc3b4a76e8e", "Microsoft-Windows-StorPort"},
    {"5770385f-c22a-43e0-bf4c-06f5698ffbd9", "Microsoft-Windows-Sysmon"},
    {"de7b24ea-73c8-4a09-985d-5bdadcfa9017", "Microsoft-Windows-TaskScheduler"},
    {"2f07e2ee-15db-40f1-90ef-9d7ba282188a", "Microsoft-Windows-TCPIP"},
    {"5d896912-022d-40aa-a3a8-4fa5515c76d7", "Microsoft-Windows-TerminalServices-LocalSessionManager"},
    {"f4e1897c-bb5d-5668-f1d8-040f4d8dd344", "Microsoft-Windows-Threat-Intelligence"},
    {"c861d0e2-a2c1-4d36-9f9c-970bab943a12", "Microsoft-Windows-ThreadPool"},
    {"89b1e9f0-5aff-44a6-9b44-0a07a7ce5845", "Microsoft-Windows-User Profiles Service"},
    {"50b3e73c-9370-461d-bb9f-26f32d68887d", "Microsoft-Windows-WebIO"},
    {"0c478c5b-0351-41b1-8c58-4a6737da32e3", "Microsoft-Windows-WFP"},
    {"8c416c79-d49b-4f01-a467-e56d3aa8234c", "Microsoft-Windows-Win32k"},
    {"11cd958a-c507-4ef3-b3f2-5fd9dfbd2c78", "Microsoft-Windows-Windows Defender"},
    {"d1bc9aff-2abf-4d71-9146-ecb2a986eb85", "Microsoft-Windows-Windows Firewall With Advanced Security"},
    {"945a8954-c147-4acd-923f-40c45405a658", "Microsoft-Windows-WindowsUpdateClient"},
    {"7d44233d-3055-4b9c-ba64-0d47ca40a232", "Microsoft-Windows-WinHttp"},
    {"43d1a55c-76d6-4f7e-995c-64c711e5cafe", "Microsoft-Windows-WinINet"},
    {"dbe9b383-7cf3-4331-91cc-a3cb16a3b538", "Microsoft-Windows-Winlogon"},
    {"a7975c8f-ac13-49f1-87da-5a984a4ab417", "Microsoft-Windows-WinRM"},
    {"e53c6823-7bb8-44bb-90dc-3f86090d48a6", "Microsoft-Windows-Winsock-AFD"},
    {"9580d7dd-0379-4658-9870-d5be7d52d6de", "Microsoft-Windows-WLAN-AutoConfig"},
    {"1418ef04-b0b4-4623-bf7e-d74ab47bbdaa", "Microsoft-Windows-WMI-Activity"},
    {"f90714a8-5509-434a-bf6d-b1624c8a19a2", "PowerShellCore"},
};

typedef struct entry {
    etl_guid guid;
    const char *name;
} entry;

static entry *sorted;
static unsigned sorted_count;

static int guid_cmp(const etl_guid *a, const etl_guid *b)
{
    if (a->data1 != b->data1)
        return a->data1 < b->data1 ? -1 : 1;
    if (a->data2 != b->data2)
        return a->data2 < b->data2 ? -1 : 1;
    if (a->data3 != b->data3)
        return a->data3 < b->data3 ? -1 : 1;
    return memcmp(a->data4, b->data4, sizeof a->data4);
}

static int entry_cmp(const void *a, const void *b)
{
    return guid_cmp(&((const entry *)a)->guid, &((const entry *)b)->guid);
}

static void build(void)
{
    static gsize once;
    if (!g_once_init_enter(&once))
        return;
    entry *e = g_new0(entry, G_N_ELEMENTS(table));
    unsigned n = 0;
    for (unsigned i = 0; i < G_N_ELEMENTS(table); i++)
        if (etl_parse_guid(table[i].guid, &e[n].guid))
            e[n++].name = table[i].name;
    qsort(e, n, sizeof *e, entry_cmp);
    sorted = e; /* lives as long as the process: the table is the library's */
    sorted_count = n;
    g_once_init_leave(&once, 1);
}

const char *etl_known_provider_name(const etl_guid *g)
{
    if (!g)
        return NULL;
    build();
    entry key = {*g, NULL};
    const entry *hit = bsearch(&key, sorted, sorted_count, sizeof *sorted, entry_cmp);
    return hit ? hit->name : NULL;
}

unsigned etl_known_provider_count(void)
{
    return G_N_ELEMENTS(table);
}

void etl_known_provider_at(unsigned i, const char **guid, const char **name)
{
    *guid = i < G_N_ELEMENTS(table) ? table[i].guid : NULL;
    *name = i < G_N_ELEMENTS(table) ? table[i].name : NULL;
}
