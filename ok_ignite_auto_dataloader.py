"""Silent: the same ``idist.auto_dataloader``, copied with ``non_blocking=True``; and one told
``pin_memory=False``, copied blocking (nothing pinned to overlap)."""
import ignite.distributed as idist
import torch
from torch.utils.data import TensorDataset


def main(model, optimizer):
    device = idist.device()
    dataset = TensorDataset(torch.zeros(64, 3), torch.zeros(64))
    loader = idist.auto_dataloader(dataset, batch_size=8, num_workers=4, shuffle=True)
    plain = idist.auto_dataloader(dataset, batch_size=8, num_workers=4, pin_memory=False)
    for epoch in range(3):
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        for x, y in plain:
            x, y = x.to(device), y.to(device)
            model(x)
